//! The work list of a constellation count: every canonical constellation expanded on the host
//! to a number of rows left to fill, made on demand.
//!
//! At N ≥ 21 the list is tens of millions of jobs (0.75 GB at N = 21). Writing it out before
//! the GPUs start, and hashing it for the partition's fingerprint, kept two H200s idle for
//! ≈ 1.2 s of a 9 s run. A [`JobList`] instead knows, per constellation, how many jobs it
//! expands into (a counting pass, a fifth of the cost of writing them), so any range of the
//! list can be made when it is handed out, and the list's identity is the starts, the rows
//! left and those counts: they determine every job.

use crate::error::{Error, Result};
use crate::gpu::GpuDevice;
use kernels::nqueens::constellation::{self, Constellation, Found, Job};
use kernels::nqueens::estimate::estimated_work;
use kernels::rng::SplitMix64;
use rayon::prelude::*;
use std::ops::Range;

/// The jobs of every canonical constellation, expanded until `rows` rows are left to fill: a
/// list that is the same on every machine (for a given program version), made range by range.
pub(super) struct JobList {
    n: u32,
    rows: u32,
    /// Each canonical constellation's starting board (weighted by its orbit).
    starts: Vec<Job>,
    /// `first[i]..first[i + 1]` are the jobs of start `i`.
    first: Vec<usize>,
    /// What the expansion itself found: boards that ended within it (and the constellations
    /// that are whole solutions already), and its nodes.
    pub found: Found,
    /// Stack slots the jobs need: the most rows one of them has left to fill.
    pub levels: u32,
}

impl JobList {
    /// The list with the most rows left per job that gives at least a quarter of `target` jobs
    /// (each row fewer multiplies the count by 4–8: insisting on the full target would
    /// overshoot it several times over). Counting is parallel over the starts. Each
    /// constellation's image is chosen with [`image_probes`] probes, estimated by `estimator`.
    pub fn new(n: u32, target: u64, estimator: Estimator) -> Result<JobList> {
        Ok(Self::from_images(
            n,
            target,
            searched_images(n, image_probes(n), estimator)?,
        ))
    }

    /// The list of the canonical constellations searched as `searched` (image, orbit size).
    fn from_images(n: u32, target: u64, searched: Vec<(Constellation, u32)>) -> JobList {
        let mut starts = Vec::new();
        let mut whole = Found::default();
        for (image, orbit) in searched {
            match image.start() {
                Some((frontier, schedule, _)) => starts.push(Job {
                    frontier,
                    schedule,
                    weight: orbit,
                }),
                // Every queen on the border (small boards): the constellation is one solution.
                None => whole.solutions += orbit as u64,
            }
        }
        // Reversed: the constellations with the largest jobs come last in the canonical order,
        // and handed out first they no longer make the run's tail (a simulation of the GPU's
        // lanes at n = 16 and 17: the longest lane 1.31 → 1.21 and 1.29 → 1.17 times the
        // average). Searched upside down (`Constellation::searched`, the fixed rule), the corner ones are now
        // the largest constellations and come last, and yet the reversed order is still the
        // faster one on the H100 (N=20 1.21 → 1.17 s, N=21 9.00 → 8.46 s): the jobs, split to
        // a number of rows left, not the constellations, are what the lanes wait on.
        starts.reverse();
        let mut rows = starts
            .iter()
            .map(|start| n - start.frontier.queens())
            .max()
            .unwrap_or(2);
        let mut counted = count_below(n, &starts, rows);
        while 4 * (counted.iter().map(|c| c.jobs).sum::<usize>() as u64) < target && rows > 4 {
            rows -= 1;
            counted = count_below(n, &starts, rows);
        }
        let mut first = Vec::with_capacity(starts.len() + 1);
        first.push(0);
        let mut found = whole;
        let mut levels = 1;
        for count in &counted {
            first.push(first.last().copied().unwrap_or(0) + count.jobs);
            found.add(&count.found);
            levels = levels.max(count.levels);
        }
        JobList {
            n,
            rows,
            starts,
            first,
            found,
            levels,
        }
    }

    /// Jobs in the list.
    pub fn len(&self) -> usize {
        self.first.last().copied().unwrap_or(0)
    }

    /// The jobs at positions `range` of the list, made on every core: each start that
    /// overlaps the range is expanded again and its jobs inside the range kept.
    pub fn jobs(&self, range: Range<usize>) -> Vec<Job> {
        let range = range.start.min(self.len())..range.end.min(self.len());
        if range.is_empty() {
            return Vec::new();
        }
        // The starts whose jobs overlap the range: from the last start that begins at or
        // before its first job, to the first that begins at or after its end.
        let from = self.first.partition_point(|&f| f <= range.start) - 1;
        let to = self.first.partition_point(|&f| f < range.end);
        let mut jobs = vec![Job::default(); range.len()];
        let mut rest = jobs.as_mut_slice();
        let mut places = Vec::with_capacity(to - from);
        for start in from..to {
            let own = self.first[start].max(range.start)..self.first[start + 1].min(range.end);
            if own.is_empty() {
                // A start with no jobs (all its boards ended within the expansion).
                continue;
            }
            let (place, tail) = rest.split_at_mut(own.len());
            places.push((start, own.start - self.first[start], place));
            rest = tail;
        }
        places.into_par_iter().for_each(|(start, skip, place)| {
            let mut index = 0usize;
            constellation::split(self.n, self.starts[start], self.rows, &mut |job| {
                if let Some(slot) = index.checked_sub(skip).and_then(|i| place.get_mut(i)) {
                    *slot = job;
                }
                index += 1;
            });
        });
        jobs
    }

    /// Every job of the list.
    pub fn all(&self) -> Vec<Job> {
        self.jobs(0..self.len())
    }

    /// Knuth's estimate of the nodes the list's jobs take, without expanding them: each start
    /// (a canonical constellation's board) estimated by `probes` random probes of its whole
    /// search ([`estimated_work`]), summed over the starts, plus the nodes the expansion itself
    /// takes. The probes run in `batches` independent batches; the result is the mean of the
    /// batches' totals and its standard error (the spread of the totals over √batches).
    pub fn probe_nodes(&self, probes: u32, batches: u32) -> (f64, f64) {
        let per_batch = (probes / batches.max(1)).max(1);
        let totals: Vec<f64> = (0..batches.max(2))
            .map(|batch| {
                self.starts
                    .par_iter()
                    .enumerate()
                    .map(|(i, start)| {
                        let mut rng = SplitMix64::new(i as u64, u64::from(batch) + 1);
                        let work = estimated_work(
                            self.n,
                            start.frontier,
                            start.schedule,
                            per_batch,
                            &mut rng,
                        );
                        work as f64
                    })
                    .sum::<f64>()
            })
            .collect();
        let k = totals.len() as f64;
        let mean = totals.iter().sum::<f64>() / k;
        let variance = totals.iter().map(|t| (t - mean).powi(2)).sum::<f64>() / (k - 1.0);
        (mean, (variance / k).sqrt())
    }

    /// Bytes that identify the list (with the size and program version): the rows left, then
    /// each start's words and job count. Equal bytes give equal jobs, in the same order.
    pub fn identity(&self) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(8 + self.starts.len() * 8 * (Job::WORDS + 1));
        bytes.extend_from_slice(&u64::from(self.rows).to_le_bytes());
        for (start, jobs) in self.starts.iter().zip(self.first.windows(2)) {
            crate::shard::push_words(&mut bytes, &start.to_words());
            bytes.extend_from_slice(&((jobs[1] - jobs[0]) as u64).to_le_bytes());
        }
        bytes
    }
}

/// Random probes per rotation with which the list picks the image of each constellation to
/// search ([`Constellation::searched`]): none below N=20, where the fixed rule is cheaper on
/// a CPU than the estimate is worth (the list must not depend on the backend: shards made on
/// CPUs and GPUs merge). From N=20, 1,000: on a GPU the estimates of the whole list take one
/// launch of a few milliseconds; on the CPU, ≈ 0.3 µs a probe, a fixed amount per constellation
/// (9,522 at N=20, 18,410 at N=23; 4 rotations each) against a search that grows ≈ 8× a size.
///
/// `WARPSEARCH_IMAGE_PROBES` sets the number for tuning runs (0: the fixed rule); the list
/// then differs, so shards and checkpoints of such runs only match runs with the same setting.
fn image_probes(n: u32) -> u32 {
    let default = if n < 20 { 0 } else { 1000 };
    std::env::var("WARPSEARCH_IMAGE_PROBES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Where the estimates that choose each constellation's image are made. Both places run the
/// same code in integers and find the same numbers, bit for bit, so the list is the same.
#[derive(Clone, Copy)]
pub(super) enum Estimator<'a> {
    /// Every core of this machine.
    Cpu,
    /// One launch on this GPU.
    Gpu(&'a GpuDevice),
}

/// The canonical constellations of size `n` in their fixed order, each as the image to search
/// ([`Constellation::searched`] with `probes` probes), with its orbit size.
fn searched_images(n: u32, probes: u32, estimator: Estimator) -> Result<Vec<(Constellation, u32)>> {
    let mut canonical = Vec::new();
    constellation::for_each_canonical(n, |c, orbit| canonical.push((c, orbit)));
    let device = match estimator {
        Estimator::Gpu(device) if probes > 0 => device,
        _ => {
            return Ok(canonical
                .par_iter()
                .map(|&(c, orbit)| (c.searched(probes), orbit))
                .collect());
        }
    };
    // Every rotation with a row to fill, as a board and the key of its probes.
    let mut boards = Vec::with_capacity(4 * canonical.len());
    let mut keys = Vec::with_capacity(4 * canonical.len());
    let mut positions = Vec::with_capacity(4 * canonical.len());
    for (c, _) in &canonical {
        for (image, key) in c.rotations() {
            positions.push(image.start().map(|(frontier, schedule, _)| {
                boards.push(Job {
                    frontier,
                    schedule,
                    weight: 0,
                });
                keys.push(key);
                boards.len() - 1
            }));
        }
    }
    let estimates = super::count::gpu_estimates(device, n, &boards, &keys, probes)?;
    // Lists made on different machines must be the same: the CPU checks a sample of the GPU's
    // numbers (32 of them, a few milliseconds).
    let stride = (boards.len() / 32).max(1);
    let differs = (0..boards.len())
        .into_par_iter()
        .step_by(stride)
        .find_any(|&i| {
            let Job {
                frontier, schedule, ..
            } = boards[i];
            let mut rng = SplitMix64::new(keys[i][0], keys[i][1]);
            estimated_work(n, frontier, schedule, probes, &mut rng) != estimates[i]
        });
    if let Some(i) = differs {
        return Err(Error::Verification(format!(
            "the GPU's estimate of board {i} of the {n}-queens list differs from the CPU's"
        )));
    }
    Ok(canonical
        .iter()
        .zip(positions.chunks(4))
        .map(|(&(c, orbit), positions)| {
            let estimates = std::array::from_fn(|g| positions[g].map_or(0, |i| estimates[i]));
            (c.pick(estimates), orbit)
        })
        .collect())
}

/// What expanding one start to `rows` rows left gives.
#[derive(Clone, Copy, Default)]
struct Counted {
    jobs: usize,
    found: Found,
    levels: u32,
}

/// Counts each start's jobs at `rows` rows left, in parallel.
fn count_below(n: u32, starts: &[Job], rows: u32) -> Vec<Counted> {
    starts
        .par_iter()
        .map(|&start| {
            let mut counted = Counted::default();
            counted.found = constellation::split(n, start, rows, &mut |job| {
                counted.jobs += 1;
                counted.levels = counted
                    .levels
                    .max(constellation::stack_levels(n - job.frontier.queens()));
            });
            counted
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use kernels::nqueens::KNOWN;
    use kernels::nqueens::constellation::{Counter, Level};
    use proptest::prelude::*;

    /// The list with `probes` probes a rotation, estimated on the CPU.
    fn list(n: u32, target: u64, probes: u32) -> JobList {
        let images = searched_images(n, probes, Estimator::Cpu);
        JobList::from_images(n, target, images.expect("the CPU estimate cannot fail"))
    }

    /// The list written out the plain way: every start's jobs in order.
    fn plain(list: &JobList) -> Vec<Job> {
        let mut jobs = Vec::new();
        for &start in &list.starts {
            constellation::split(list.n, start, list.rows, &mut |job| jobs.push(job));
        }
        jobs
    }

    #[test]
    fn the_whole_list_is_every_start_expanded_in_order() {
        for (n, target) in [(8, 1), (11, 1 << 10), (13, 1 << 16)] {
            let list = list(n, target, 0);
            let all = list.all();
            assert_eq!(all, plain(&list), "n = {n}");
            assert_eq!(all.len(), list.len());
            let rows = all.iter().map(|j| n - j.frontier.queens()).max();
            assert_eq!(list.levels, constellation::stack_levels(rows.unwrap_or(2)));
        }
    }

    /// The weighted solutions of every job of `list`, counted on this thread, with what the
    /// expansion found itself; and the counter's nodes.
    fn count(list: &JobList) -> Found {
        let mut counter = Counter::<_, 1>::new(list.n, [Level::default(); 32]);
        for job in list.all() {
            counter.load(job);
            counter.run();
        }
        let mut found = list.found;
        found.add(&counter.found);
        found
    }

    #[test]
    fn a_list_of_estimated_images_counts_the_same_with_fewer_nodes() {
        for (n, target) in [(11, 1 << 10), (13, 1 << 12)] {
            let fixed = count(&list(n, target, 0));
            let estimated = list(n, target, 50);
            // The choice is a function of the constellation: made twice, the same list.
            let again = list(n, target, 50);
            assert_eq!(estimated.identity(), again.identity(), "n = {n}");
            let estimated = count(&estimated);
            assert_eq!(estimated.solutions, KNOWN[n as usize - 1].0, "n = {n}");
            assert_eq!(fixed.solutions, estimated.solutions, "n = {n}");
            assert!(estimated.nodes < fixed.nodes, "n = {n}");
        }
    }

    #[test]
    fn probes_predict_the_nodes_of_the_list() {
        for (n, probes) in [(12, 64), (14, 64), (15, 256)] {
            let list = list(n, 1 << 10, 100);
            let counted = count(&list).nodes as f64;
            let (nodes, error) = list.probe_nodes(probes, 8);
            eprintln!(
                "n={n}: counted {counted:.4e}, probes {nodes:.4e} ± {error:.2e} ({:+.2} %)",
                100.0 * (nodes / counted - 1.0)
            );
            assert!(
                (nodes / counted - 1.0).abs() < 0.1,
                "n = {n}: {nodes} against {counted}"
            );
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// Any range is the same slice of the whole list (ranges past the end are cut).
        #[test]
        fn a_range_is_a_slice_of_the_whole_list(a in 0usize..3000, b in 0usize..3000) {
            let list = list(12, 1 << 10, 0);
            let all = list.all();
            let (a, b) = (a.min(b), a.max(b));
            let expected = &all[a.min(all.len())..b.min(all.len())];
            prop_assert_eq!(list.jobs(a..b), expected);
        }
    }
}
