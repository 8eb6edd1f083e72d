//! What every exhaustive search shares when it is split across runs: deterministic shards,
//! result files, checkpoints that survive a kill, and merging the shards' results.
//!
//! A search's work is a fixed list of *units* (its subproblems), grouped into *chunks* of
//! consecutive units. The list depends only on the problem, its size and the program version —
//! never on the machine — and its [`Partition::fingerprint`] (BLAKE3 of the units) proves it.
//! Shard K of M takes chunks K−1, K−1+M, K−1+2M, … (strided, so shards get alike mixes of
//! large and small chunks). A chunk is the unit of progress: a checkpoint lists the chunks
//! done and their summed counts, so a resumed run redoes at most the chunks that were running
//! when it was killed, and never counts one twice.

use crate::control::RunControl;
use crate::error::{Error, Result};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

mod files;
mod ledger;
mod partition;
pub mod predict;
pub mod verify;
mod workers;

pub use files::*;
pub use ledger::*;
pub use partition::*;
pub use workers::*;

#[cfg(test)]
mod tests {

    #[test]
    fn json_counts_add_up_field_by_field() {
        let mut sum = JsonCounts::default();
        for part in [
            serde_json::json!({"solutions": 3, "nodes": 10, "classes": [1, 2], "rate": 0.5}),
            serde_json::json!({"solutions": 4, "nodes": 5, "classes": [1, 0, 7], "rate": 0.25}),
        ] {
            sum.add(&JsonCounts(part));
        }
        assert_eq!(
            sum.0,
            serde_json::json!({"solutions": 7, "nodes": 15, "classes": [2, 2, 7], "rate": 0.75})
        );
        assert_eq!(sum.nodes(), 15);
    }
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
    struct Sum(u64);

    impl Partial for Sum {
        fn add(&mut self, other: &Self) {
            self.0 += other.0;
        }
        fn nodes(&self) -> u128 {
            self.0.into()
        }
    }

    fn workers(count: usize, max_batch: usize) -> Workers {
        Workers {
            names: (0..count).map(|i| format!("worker {i}")).collect(),
            max_batch,
            weights: None,
            fault: None,
            hang: HangPolicy::default(),
        }
    }

    fn partition() -> Partition {
        let units: Vec<[u64; 1]> = (0..1000).map(|i| [i]).collect();
        Partition::new("test", 5, &units, 37)
    }

    #[test]
    fn shards_cover_every_chunk_exactly_once() {
        for of in 1..=9 {
            let mut all: Vec<u32> = (1..=of)
                .flat_map(|k| Shard::new(k, of).unwrap().chunks(37))
                .collect();
            all.sort();
            assert_eq!(all, (0..37).collect::<Vec<_>>(), "{of} shards");
        }
        let p = partition();
        let covered: usize = (0..p.chunks).map(|c| p.chunk_range(c).len()).sum();
        assert_eq!(covered, 1000);
        assert!(
            Shard::parse("0/3").is_err()
                && Shard::parse("4/3").is_err()
                && Shard::parse("x").is_err()
        );
        assert_eq!(Shard::parse(" 2/3 ").unwrap(), Shard { index: 2, of: 3 });
    }

    #[test]
    fn a_resumed_run_counts_every_chunk_once_whenever_it_stopped() {
        let dir = tempfile::tempdir().unwrap();
        let p = partition();
        let file = CheckpointFile {
            path: dir.path().join("ck.json"),
            every: Duration::ZERO,
        };
        let value = |c: u32| -> u64 { p.chunk_range(c).map(|u| u as u64).sum() };
        let expected: u64 = (0..1000).sum();
        for stop_after in [0, 1, 5, 36] {
            let _ = std::fs::remove_file(&file.path);
            let calls = AtomicUsize::new(0);
            let first = run_chunks(
                &p,
                Shard::WHOLE,
                Some(&file),
                &RunControl::quiet(),
                &workers(1, 1),
                |_, source, _, report| loop {
                    let c = source.batch()?;
                    if c.is_empty() {
                        return Ok(());
                    }
                    if calls.fetch_add(1, Ordering::Relaxed) >= stop_after {
                        return Err(Error::Interrupted);
                    }
                    report(c[0], Sum(value(c[0])))?;
                },
            );
            assert!(matches!(first, Err(Error::Interrupted)));
            let again = AtomicUsize::new(0);
            // Resumed by three workers taking batches of up to 4 chunks each.
            let run = run_chunks(
                &p,
                Shard::WHOLE,
                Some(&file),
                &RunControl::quiet(),
                &workers(3, 4),
                |worker, source, _, report| loop {
                    // Worker 0 feeds itself two at a time, the others take batches.
                    let c = match worker {
                        0 => source.take(2)?,
                        _ => source.batch()?,
                    };
                    if c.is_empty() {
                        return Ok(());
                    }
                    // Reported chunk by chunk in another order.
                    for &chunk in c.iter().rev() {
                        again.fetch_add(1, Ordering::Relaxed);
                        report(chunk, Sum(value(chunk)))?;
                    }
                },
            )
            .unwrap();
            assert_eq!(run.counts.0, expected, "stopped after {stop_after}");
            assert_eq!(again.into_inner(), 37 - stop_after, "only the rest is run");
            let shared: u32 = run.shares.iter().map(|s| s.chunks).sum();
            assert_eq!(shared as usize, 37 - stop_after);
        }
        // A checkpoint of another search or shard is refused.
        let other = Partition::new("test", 6, &[[1u64]], 1);
        assert!(
            run_chunks::<Sum>(
                &other,
                Shard::WHOLE,
                Some(&file),
                &RunControl::quiet(),
                &workers(1, 1),
                |_, _, _, _| Ok(())
            )
            .is_err()
        );
        assert!(
            run_chunks::<Sum>(
                &p,
                Shard::new(1, 2).unwrap(),
                Some(&file),
                &RunControl::quiet(),
                &workers(1, 1),
                |_, _, _, _| Ok(())
            )
            .is_err()
        );
    }

    /// A worker that fails mid-run is dropped: its unfinished chunks go to the others, and
    /// the run ends exact, naming it and the chunks counted again.
    #[test]
    fn a_failing_worker_is_dropped_and_the_run_ends_exact() {
        let p = partition();
        // The others wait until worker 2 has failed, so that it gets its chunks whatever the
        // threads' timing.
        let failed = std::sync::atomic::AtomicBool::new(false);
        let run = run_chunks::<Sum>(
            &p,
            Shard::WHOLE,
            None,
            &RunControl::quiet(),
            &workers(4, 2),
            |worker, source, control, report| {
                let mut ran = 0;
                loop {
                    let chunks = source.batch()?;
                    if chunks.is_empty() {
                        return Ok(());
                    }
                    for &chunk in &chunks {
                        if control.cancelled() {
                            return Err(Error::Interrupted);
                        }
                        // Worker 2 fails on its third chunk, holding the rest of its batch.
                        if worker == 2 && ran == 2 {
                            failed.store(true, Ordering::Relaxed);
                            return Err(Error::SearchLimit("worker 2 broke".into()));
                        }
                        while worker != 2 && !failed.load(Ordering::Relaxed) {
                            std::thread::sleep(Duration::from_millis(1));
                        }
                        std::thread::sleep(Duration::from_millis(2));
                        report(chunk, Sum(u64::from(chunk)))?;
                        ran += 1;
                    }
                }
            },
        )
        .unwrap();
        assert_eq!(run.counts.0, (0..37).sum::<u64>(), "every chunk once");
        assert_eq!(run.chunks.len(), 37);
        assert_eq!(run.faults.len(), 1, "{:?}", run.faults);
        assert_eq!(run.faults[0].device, "worker 2");
        assert!(run.faults[0].error.contains("worker 2 broke"));
        assert!(!run.faults[0].recounted.is_empty());
        for chunk in &run.faults[0].recounted {
            assert_ne!(run.chunks[*chunk as usize].device, "worker 2");
        }
    }

    /// When every worker fails, the run stops with an error that names them, and the chunks
    /// finished before are in the checkpoint.
    #[test]
    fn when_every_worker_fails_the_run_stops_and_keeps_its_checkpoint() {
        let p = partition();
        let dir = tempfile::tempdir().unwrap();
        let file = CheckpointFile {
            path: dir.path().join("ck.json"),
            every: Duration::from_secs(3600),
        };
        let outcome = run_chunks::<Sum>(
            &p,
            Shard::WHOLE,
            Some(&file),
            &RunControl::quiet(),
            &workers(3, 1),
            |worker, source, _, report| {
                let mut ran = 0;
                loop {
                    let chunks = source.batch()?;
                    if chunks.is_empty() {
                        return Ok(());
                    }
                    if ran == 3 {
                        return Err(Error::SearchLimit(format!("worker {worker} broke")));
                    }
                    report(chunks[0], Sum(1))?;
                    ran += 1;
                }
            },
        );
        match outcome {
            Err(Error::DevicesFailed(all)) => {
                assert!(
                    (0..3).all(|w| all.contains(&format!("worker {w} broke"))),
                    "{all}"
                )
            }
            other => panic!("{:?}", other.map(|r| r.counts)),
        }
        let saved: ChunkFile<Sum> = ChunkFile::read(&file.path, false).unwrap();
        assert_eq!(
            saved.chunks.len(),
            9,
            "three chunks from each worker before it failed"
        );
    }

    /// An injected fault (as `WARPSEARCH_FAULT=1:5` asks) drops worker 1 at its sixth report;
    /// the run still counts every chunk once.
    #[test]
    fn an_injected_fault_drops_its_worker_and_the_run_ends_exact() {
        let p = partition();
        let mut three = workers(3, 1);
        three.fault = Some(Injected {
            worker: 1,
            after: 5,
            hang: false,
        });
        // The others wait until worker 1 has met its fault, so that it gets its six chunks
        // whatever the threads' timing.
        let failed = std::sync::atomic::AtomicBool::new(false);
        let run = run_chunks::<Sum>(
            &p,
            Shard::WHOLE,
            None,
            &RunControl::quiet(),
            &three,
            |worker, source, _, report| loop {
                let chunks = source.batch()?;
                if chunks.is_empty() {
                    return Ok(());
                }
                while worker != 1 && !failed.load(Ordering::Relaxed) {
                    std::thread::sleep(Duration::from_millis(1));
                }
                let reported = report(chunks[0], Sum(u64::from(chunks[0])));
                if reported.is_err() {
                    failed.store(true, Ordering::Relaxed);
                }
                reported?;
            },
        )
        .unwrap();
        assert_eq!(run.counts.0, (0..37).sum::<u64>());
        assert_eq!(run.faults.len(), 1);
        assert!(
            run.faults[0].error.contains(FAULT_VARIABLE),
            "{:?}",
            run.faults
        );
        let by_one = run.chunks.iter().filter(|c| c.device == "worker 1").count();
        assert_eq!(by_one, 5, "worker 1 reported five chunks before its fault");
        assert_eq!(run.faults[0].recounted.len(), 1, "the chunk it held");
    }

    #[test]
    fn a_fault_is_read_as_worker_chunks_and_an_optional_hang() {
        let fault = |worker, after, hang| {
            Some(Injected {
                worker,
                after,
                hang,
            })
        };
        assert_eq!(Injected::parse("1:5"), fault(1, 5, false));
        assert_eq!(Injected::parse(" 0 : 64 :hang"), fault(0, 64, true));
        assert_eq!(Injected::parse("1:5:slow"), None);
        assert_eq!(Injected::parse("1"), None);
    }

    /// A worker that hangs (as `WARPSEARCH_FAULT=1:3:hang` asks) is taken for hung once it has
    /// been silent past the limit, asked to stop and dropped; its chunk is counted by another.
    #[test]
    fn a_hung_worker_is_dropped_at_the_limit_and_the_run_ends_exact() {
        let p = partition();
        let mut three = workers(3, 1);
        three.fault = Some(Injected {
            worker: 1,
            after: 3,
            hang: true,
        });
        three.hang = HangPolicy {
            warn_factor: 10.0,
            warn_after: Duration::from_millis(20),
            limit: Some(Duration::from_secs(1)),
        };
        let run = run_chunks::<Sum>(
            &p,
            Shard::WHOLE,
            None,
            &RunControl::quiet(),
            &three,
            |_, source, _, report| loop {
                let chunks = source.batch()?;
                if chunks.is_empty() {
                    return Ok(());
                }
                std::thread::sleep(Duration::from_millis(2));
                report(chunks[0], Sum(u64::from(chunks[0])))?;
            },
        )
        .unwrap();
        assert_eq!(run.counts.0, (0..37).sum::<u64>());
        assert_eq!(run.faults.len(), 1, "{:?}", run.faults);
        assert_eq!(run.faults[0].device, "worker 1");
        assert!(
            run.faults[0].error.contains("taken for hung"),
            "{:?}",
            run.faults
        );
        assert_eq!(run.faults[0].recounted.len(), 1, "the chunk it hung on");
        let by_one = run.chunks.iter().filter(|c| c.device == "worker 1").count();
        assert_eq!(by_one, 3, "worker 1 reported three chunks before it hung");
    }

    /// A slow chunk past the warning threshold but within no limit is only reported: the run
    /// ends with no fault.
    #[test]
    fn a_slow_worker_without_a_limit_is_warned_about_not_dropped() {
        let p = partition();
        let mut two = workers(2, 1);
        two.hang = HangPolicy {
            warn_factor: 10.0,
            warn_after: Duration::from_millis(10),
            limit: None,
        };
        let run = run_chunks::<Sum>(
            &p,
            Shard::WHOLE,
            None,
            &RunControl::quiet(),
            &two,
            |worker, source, _, report| loop {
                let chunks = source.batch()?;
                if chunks.is_empty() {
                    return Ok(());
                }
                if worker == 0 && chunks[0] == 0 {
                    std::thread::sleep(Duration::from_millis(150));
                }
                report(chunks[0], Sum(u64::from(chunks[0])))?;
            },
        )
        .unwrap();
        assert_eq!(run.counts.0, (0..37).sum::<u64>());
        assert!(run.faults.is_empty(), "{:?}", run.faults);
    }

    #[test]
    fn guided_batches_shrink_as_the_list_empties() {
        // Guided batches: several workers share the chunks, batches shrink.
        let w = workers(2, usize::MAX);
        assert_eq!(w.next_batch(256), 64);
        assert_eq!(w.next_batch(3), 1);
        assert_eq!(workers(1, usize::MAX).next_batch(256), 256);
        assert_eq!(workers(1, 1).next_batch(256), 1);
    }

    #[test]
    fn weighted_chunks_are_handed_out_heaviest_first_and_each_once() {
        let p = partition();
        // Chunk c weighs (c · 7) mod 37: a permutation of 0..37.
        let weights: Vec<f64> = (0..37).map(|c| ((c * 7) % 37) as f64).collect();
        let handed = std::sync::Mutex::new(Vec::new());
        let run = run_chunks(
            &p,
            Shard::WHOLE,
            None,
            &RunControl::quiet(),
            &workers(1, 1).with_weights(weights.clone()),
            |_, source, _, report| loop {
                let c = source.batch()?;
                if c.is_empty() {
                    return Ok(());
                }
                handed.lock().unwrap().push(c[0]);
                report(c[0], Sum(1))?;
            },
        )
        .unwrap();
        assert_eq!(run.counts.0, 37);
        let handed = handed.into_inner().unwrap();
        let handed_weights: Vec<f64> = handed.iter().map(|&c| weights[c as usize]).collect();
        let expected: Vec<f64> = (0..37).rev().map(f64::from).collect();
        assert_eq!(handed_weights, expected);
        // Weights that do not cover every chunk leave the partition's order.
        let w = workers(1, 1).with_weights(vec![1.0, 2.0]);
        assert_eq!(w.order(vec![0, 1, 2]), vec![0, 1, 2]);
        assert_eq!(w.order(vec![0, 1]), vec![1, 0]);
    }

    #[test]
    fn merge_needs_every_shard_once_of_one_search() {
        let dir = tempfile::tempdir().unwrap();
        let p = partition();
        let write = |name: &str, shard: Shard, partition: &Partition| {
            let path = dir.path().join(name);
            let chunks: Vec<ChunkCount<Sum>> = shard
                .chunks(partition.chunks)
                .map(|index| ChunkCount {
                    index,
                    counts: Sum(index as u64),
                    device: "cpu".into(),
                })
                .collect();
            let counts = sum_of(&chunks);
            let result = ShardResult {
                partition: partition.clone(),
                shard,
                seconds: 1.0,
                backend: "cpu".into(),
                devices: vec![],
                per_device: vec![],
                faults: vec![],
                digest: digest(partition, shard, &chunks, &counts).unwrap(),
                counts,
                chunks,
            };
            write_json_atomically(&path, &result).unwrap();
            path
        };
        let a = write("a.json", Shard::new(1, 3).unwrap(), &p);
        let b = write("b.json", Shard::new(2, 3).unwrap(), &p);
        let c = write("c.json", Shard::new(3, 3).unwrap(), &p);
        let (_, sum, seconds, _) = merge::<Sum>(&[a.clone(), b.clone(), c.clone()]).unwrap();
        assert_eq!((sum.0, seconds), ((0..37).sum(), 3.0));
        let message = |files: &[PathBuf]| merge::<Sum>(files).unwrap_err().to_string();
        assert!(message(&[a.clone(), b.clone()]).contains("missing: 3/3"));
        assert!(message(&[a.clone(), b.clone(), b.clone(), c.clone()]).contains("twice"));
        let other = write(
            "d.json",
            Shard::new(3, 3).unwrap(),
            &Partition::new("test", 6, &[[1u64]], 1),
        );
        assert!(message(&[a.clone(), b.clone(), other]).contains("d.json"));
        let four = write("e.json", Shard::new(3, 4).unwrap(), &p);
        assert!(message(&[a.clone(), b.clone(), four]).contains("numbers of shards"));
        // A file edited by hand is refused, by name: a chunk's count, the sum, a chunk
        // dropped (with its digest recomputed), or the digest itself.
        let edit = |name: &str, change: &dyn Fn(&mut serde_json::Value)| {
            let mut value: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(&c).unwrap()).unwrap();
            change(&mut value);
            let path = dir.path().join(name);
            std::fs::write(&path, value.to_string()).unwrap();
            message(&[a.clone(), b.clone(), path])
        };
        let chunk = edit("chunk.json", &|v| v["chunks"][1]["counts"] = 1000.into());
        assert!(
            chunk.contains("chunk.json") && chunk.contains("digest"),
            "{chunk}"
        );
        let sum = edit("sum.json", &|v| v["counts"] = 7.into());
        assert!(sum.contains("sum.json") && sum.contains("digest"), "{sum}");
        let resummed = edit("resummed.json", &|v| {
            let chunks: Vec<ChunkCount<Sum>> = serde_json::from_value(v["chunks"].clone()).unwrap();
            v["counts"] = 7.into();
            v["digest"] = digest(&p, Shard::new(3, 3).unwrap(), &chunks, &Sum(7))
                .unwrap()
                .into();
        });
        assert!(resummed.contains("not the sum"), "{resummed}");
        let short = edit("short.json", &|v| {
            let mut chunks: Vec<ChunkCount<Sum>> =
                serde_json::from_value(v["chunks"].clone()).unwrap();
            chunks.pop();
            let counts = sum_of(&chunks);
            v["counts"] = serde_json::to_value(&counts).unwrap();
            v["digest"] = digest(&p, Shard::new(3, 3).unwrap(), &chunks, &counts)
                .unwrap()
                .into();
            v["chunks"] = serde_json::to_value(chunks).unwrap();
        });
        assert!(
            short.contains("short.json") && short.contains("holds 11 of"),
            "{short}"
        );
        // A file of another version with the same work list merges like this version's; one
        // in a format this version cannot read names its version.
        let old_path = dir.path().join("old-version.json");
        let mut old: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&c).unwrap()).unwrap();
        old["partition"]["version"] = "0.0.1".into();
        std::fs::write(&old_path, old.to_string()).unwrap();
        let (_, sum, _, _) = merge::<Sum>(&[a.clone(), b.clone(), old_path]).unwrap();
        assert_eq!(sum.0, (0..37).sum::<u64>());
        let old_format = edit("old-format.json", &|v| {
            v["partition"]["version"] = "0.0.1".into();
            v["done"] = v["chunks"].take();
            v.as_object_mut().unwrap().remove("chunks");
        });
        assert!(
            old_format.contains("written by warpsearch 0.0.1 in a format"),
            "{old_format}"
        );
        let digest = edit("digest.json", &|v| v["digest"] = "00".into());
        assert!(digest.contains("digest.json"), "{digest}");
    }

    /// A search's own counts type, its fields not in alphabetical order, and `JsonCounts`
    /// (how `warpsearch merge` reads any search's file) find the same digest.
    #[test]
    fn a_file_digests_the_same_read_as_its_type_or_as_json() {
        #[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
        struct Two {
            zeta: u64,
            alpha: u64,
        }
        impl Partial for Two {
            fn add(&mut self, other: &Self) {
                self.zeta += other.zeta;
                self.alpha += other.alpha;
            }
            fn nodes(&self) -> u128 {
                self.zeta.into()
            }
        }
        let p = partition();
        let shard = Shard::new(2, 5).unwrap();
        let chunks: Vec<ChunkCount<Two>> = shard
            .chunks(p.chunks)
            .map(|index| ChunkCount {
                index,
                counts: Two {
                    zeta: index as u64,
                    alpha: 1,
                },
                device: "GPU 0".into(),
            })
            .collect();
        let counts = sum_of(&chunks);
        let result = ShardResult {
            partition: p.clone(),
            shard,
            seconds: 1.0,
            backend: "gpu".into(),
            devices: vec![],
            per_device: vec![],
            faults: vec![],
            digest: digest(&p, shard, &chunks, &counts).unwrap(),
            counts,
            chunks,
        };
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("two.json");
        write_json_atomically(&path, &result).unwrap();
        assert!(ChunkFile::<Two>::read(&path, true).is_ok());
        assert!(ChunkFile::<JsonCounts>::read(&path, true).is_ok());
    }

    #[test]
    fn json_counts_add_past_64_bits_exactly() {
        let big = u64::MAX as u128;
        let mut sum = JsonCounts(serde_json::json!({"nodes": u64::MAX}));
        sum.add(&JsonCounts(serde_json::json!({"nodes": u64::MAX})));
        assert_eq!(sum.nodes(), 2 * big);
        assert_eq!(sum.0["nodes"].to_string(), (2 * big).to_string());
    }

    #[test]
    fn a_list_of_chunks_runs_those_chunks_only() {
        let p = partition();
        let list: BTreeSet<u32> = [3, 17, 36].into();
        let run = run_chunks(
            &p,
            Selection::Chunks(list.clone()),
            None,
            &RunControl::quiet(),
            &workers(2, 2),
            |_, source, _, report| loop {
                let c = source.batch()?;
                if c.is_empty() {
                    return Ok(());
                }
                for chunk in c {
                    report(chunk, Sum(chunk as u64))?;
                }
            },
        )
        .unwrap();
        let indices: Vec<u32> = run.chunks.iter().map(|c| c.index).collect();
        assert_eq!(indices, vec![3, 17, 36]);
        assert_eq!(run.counts.0, 56);
        let dir = tempfile::tempdir().unwrap();
        let file = CheckpointFile {
            path: dir.path().join("ck.json"),
            every: Duration::ZERO,
        };
        assert!(
            run_chunks::<Sum>(
                &p,
                Selection::Chunks(list),
                Some(&file),
                &RunControl::quiet(),
                &workers(1, 1),
                |_, _, _, _| Ok(())
            )
            .is_err()
        );
    }
}
