//! Symmetry: the eight images of a configuration, its class, and counting by class.

use super::*;

/// A symmetry of the square as a map of cells: (row, column, n) → (row, column).
pub(crate) type CellMap = fn(usize, usize, usize) -> (usize, usize);

/// Checks that `rows` describes points on an n×n grid, n = `rows.len()` ≤ 32: no row has a
/// point in a column ≥ n.
pub fn check_configuration(rows: &[u32]) -> Result<()> {
    let n = rows.len();
    if n > 32 {
        return Err(Error::InvalidArgument(format!(
            "a configuration has at most 32 rows (one u32 a row); got {n}"
        )));
    }
    if let Some((r, _)) = rows
        .iter()
        .enumerate()
        .find(|&(_, &row)| n < 32 && row >> n != 0)
    {
        return Err(Error::InvalidArgument(format!(
            "row {r} has a point in a column ≥ {n}, outside the {n}×{n} grid"
        )));
    }
    Ok(())
}

/// The 8 images of a configuration under the symmetries of the square, identity first, in the
/// order: identity, rot90, rot180, rot270, flip rows, flip columns, main diagonal, anti-diagonal.
/// An error when `rows` is not a configuration ([`check_configuration`]).
pub fn images(rows: &[u32]) -> Result<[Configuration; 8]> {
    check_configuration(rows)?;
    Ok(images_of(rows))
}

/// [`images`] of a checked configuration.
pub(crate) fn images_of(rows: &[u32]) -> [Configuration; 8] {
    let n = rows.len();
    let maps: [CellMap; 8] = [
        |r, c, _| (r, c),
        |r, c, n| (c, n - 1 - r),
        |r, c, n| (n - 1 - r, n - 1 - c),
        |r, c, n| (n - 1 - c, r),
        |r, c, n| (n - 1 - r, c),
        |r, c, n| (r, n - 1 - c),
        |r, c, _| (c, r),
        |r, c, n| (n - 1 - c, n - 1 - r),
    ];
    maps.map(|map| {
        let mut out = vec![0u32; n];
        for (r, &row) in rows.iter().enumerate() {
            for c in (0..n).filter(|&c| row >> c & 1 == 1) {
                let (r2, c2) = map(r, c, n);
                out[r2] |= 1 << c2;
            }
        }
        out
    })
}

/// Whether `rows` is its orbit's representative (the lexicographically smallest image), and the
/// class of its stabiliser. An error when `rows` is not a configuration.
pub fn classify(rows: &[u32]) -> Result<(bool, Class)> {
    check_configuration(rows)?;
    Ok(classify_checked(rows))
}

/// [`classify`] of a checked configuration.
pub(crate) fn classify_checked(rows: &[u32]) -> (bool, Class) {
    let all = images_of(rows);
    let canonical = all.iter().all(|image| rows <= image.as_slice());
    let fixes: Vec<bool> = all.iter().map(|image| image.as_slice() == rows).collect();
    let class = match (
        fixes.iter().filter(|&&f| f).count(),
        fixes[1],
        fixes[2],
        fixes[4] || fixes[5],
        fixes[6] || fixes[7],
    ) {
        (8, ..) => Class::Full,
        (4, true, ..) => Class::Rot4,
        (4, _, _, true, false) => Class::Ort2,
        (4, ..) => Class::Dia2,
        (2, _, true, ..) => Class::Rot2,
        (2, _, _, true, _) => Class::Ort1,
        (2, ..) => Class::Dia1,
        _ => Class::Iden,
    };
    (canonical, class)
}

/// A stabiliser class (see [`Classes`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// Trivial.
    Iden,
    /// One diagonal.
    Dia1,
    /// One mid-line.
    Ort1,
    /// 180°.
    Rot2,
    /// Both diagonals.
    Dia2,
    /// 90°.
    Rot4,
    /// Both mid-lines.
    Ort2,
    /// All.
    Full,
}

/// Calls `found` once with every distinct image of `rows` (its orbit), `rows` first.
pub(crate) fn stream_orbit(rows: &[u32], found: &impl Fn(&[u32])) {
    found(rows);
    let mut others: Vec<Configuration> = images_of(rows)
        .into_iter()
        .filter(|image| image.as_slice() != rows)
        .collect();
    others.sort();
    others.dedup();
    for image in &others {
        found(image);
    }
}

/// Counts by class, for the boards given to [`Tally::record`].
#[derive(Default)]
pub(crate) struct Tally(pub(crate) Classes);

impl Tally {
    /// Counts a board found by the search if it is its orbit's canonical member (the search
    /// may find other members too), and then streams the whole orbit to `found`.
    pub(crate) fn record(&mut self, rows: &[u32], found: &impl Fn(&[u32])) {
        let (canonical, class) = classify_checked(rows);
        if !canonical {
            return;
        }
        stream_orbit(rows, found);
        let c = &mut self.0;
        *match class {
            Class::Iden => &mut c.iden,
            Class::Dia1 => &mut c.dia1,
            Class::Ort1 => &mut c.ort1,
            Class::Rot2 => &mut c.rot2,
            Class::Dia2 => &mut c.dia2,
            Class::Rot4 => &mut c.rot4,
            Class::Ort2 => &mut c.ort2,
            Class::Full => &mut c.full,
        } += 1;
    }
}
