//! The threat tables kept on disk, so that a second `warpsearch gomoku` call starts at once.
//!
//! One file a rule, `gomoku-<rule>-v<FORMAT>-<crate version>.table` in the platform cache
//! folder (`$XDG_CACHE_HOME/warpsearch` or `~/.cache/warpsearch` on Linux, or
//! `$WARPSEARCH_CACHE_DIR`). Layout, little-endian:
//!
//! | bytes | what |
//! | --- | --- |
//! | 8 | magic `WSGOMOKU` |
//! | 4 | format version ([`FORMAT`]) |
//! | 4 | rule (0 freestyle, 1 standard) |
//! | 4 | number of codes ([`CODES`]) |
//! | 4 | number of patterns P |
//! | 16·P | the patterns, [`Pattern::to_bits`] |
//! | 2·CODES | the low 16 bits of every code's pattern index |
//! | 8·⌈CODES/64⌉ | bit 16 of every code's pattern index, 64 codes a word |
//! | 4 | CRC-32 of everything before it |
//!
//! A file is written to a temporary file in the same folder, synced, then renamed over the
//! final name, so readers see a whole file or none, whatever moment a writer is killed; two
//! writers racing both write whole, identical files. A file that fails any check (size, magic,
//! version, counts, checksum, an index past the patterns) is reported and rebuilt.

use super::Rule;
use super::table::{CODES, Pattern, Table};
use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// Words of the index's bit 16 (one bit a code).
const HIGH_WORDS: usize = CODES.div_ceil(64);

/// Bumped whenever the layout or the meaning of an entry changes.
pub const FORMAT: u32 = 2;
const MAGIC: &[u8; 8] = b"WSGOMOKU";
const HEADER: usize = 8 + 4 * 4;

/// Why a cached table was not used.
#[derive(Debug, thiserror::Error)]
pub enum CacheError {
    /// No file yet.
    #[error("no cached table")]
    Missing,
    /// The file is there but not a valid table.
    #[error("{path} is not a valid table ({why})")]
    Corrupt {
        /// The file.
        path: String,
        /// The check that failed.
        why: String,
    },
    /// The file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The error.
        source: std::io::Error,
    },
}

/// What [`load_or_build`] did.
#[derive(Debug)]
pub enum Outcome {
    /// The table came from the cache.
    Loaded(PathBuf),
    /// The table was built and written to the cache.
    Built(PathBuf),
    /// The table was built; the cache could not be used, for this reason (said in one line).
    BuiltWithoutCache(String),
}

/// The cache folder: `$WARPSEARCH_CACHE_DIR`, else the platform's cache folder + `warpsearch`.
pub fn default_dir() -> Option<PathBuf> {
    match std::env::var_os("WARPSEARCH_CACHE_DIR") {
        Some(dir) if !dir.is_empty() => Some(PathBuf::from(dir)),
        _ => dirs::cache_dir().map(|dir| dir.join("warpsearch")),
    }
}

/// The file of `rule`'s table in `dir`.
pub fn path(dir: &Path, rule: Rule) -> PathBuf {
    let name = match rule {
        Rule::Freestyle => "freestyle",
        Rule::Standard => "standard",
    };
    dir.join(format!(
        "gomoku-{name}-v{FORMAT}-{}.table",
        env!("CARGO_PKG_VERSION")
    ))
}

fn rule_number(rule: Rule) -> u32 {
    match rule {
        Rule::Freestyle => 0,
        Rule::Standard => 1,
    }
}

/// The table in the file's bytes (little-endian, see the module doc).
pub fn encode(table: &Table, rule: Rule) -> Vec<u8> {
    let patterns = table.patterns();
    let mut bytes =
        Vec::with_capacity(HEADER + patterns.len() * 16 + CODES * 2 + HIGH_WORDS * 8 + 4);
    bytes.extend_from_slice(MAGIC);
    for word in [
        FORMAT,
        rule_number(rule),
        CODES as u32,
        patterns.len() as u32,
    ] {
        bytes.extend_from_slice(&word.to_le_bytes());
    }
    for pattern in patterns {
        bytes.extend_from_slice(&pattern.to_bits().to_le_bytes());
    }
    for &index in table.indices() {
        bytes.extend_from_slice(&index.to_le_bytes());
    }
    for &word in table.high_bits() {
        bytes.extend_from_slice(&word.to_le_bytes());
    }
    let crc = crc32fast::hash(&bytes);
    bytes.extend_from_slice(&crc.to_le_bytes());
    bytes
}

/// Reads a table back from [`encode`]'s bytes, checking everything.
pub fn decode(bytes: &[u8], rule: Rule, path: &Path) -> Result<Table, CacheError> {
    let corrupt = |why: String| CacheError::Corrupt {
        path: path.display().to_string(),
        why,
    };
    if bytes.len() < HEADER + 4 {
        return Err(corrupt(format!("{} bytes, too short", bytes.len())));
    }
    let (body, crc) = bytes.split_at(bytes.len() - 4);
    let word = |at: usize| u32::from_le_bytes([body[at], body[at + 1], body[at + 2], body[at + 3]]);
    if &body[..8] != MAGIC {
        return Err(corrupt("wrong magic".into()));
    }
    if word(8) != FORMAT || word(12) != rule_number(rule) || word(16) != CODES as u32 {
        return Err(corrupt(format!(
            "format {}, rule {}, {} codes; expected {FORMAT}, {}, {CODES}",
            word(8),
            word(12),
            word(16),
            rule_number(rule)
        )));
    }
    let count = word(20) as usize;
    let expected = HEADER + count * 16 + CODES * 2 + HIGH_WORDS * 8;
    if body.len() != expected {
        return Err(corrupt(format!(
            "{} bytes, expected {}",
            bytes.len(),
            expected + 4
        )));
    }
    if crc32fast::hash(body).to_le_bytes() != crc {
        return Err(corrupt("checksum mismatch".into()));
    }
    let (patterns, index) = body[HEADER..].split_at(count * 16);
    let patterns: Vec<Pattern> = patterns
        .chunks_exact(16)
        .map(|b| {
            let mut word = [0u8; 16];
            word.copy_from_slice(b);
            Pattern::from_bits(u128::from_le_bytes(word))
        })
        .collect();
    let (index, high) = index.split_at(CODES * 2);
    let index: Vec<u16> = index
        .chunks_exact(2)
        .map(|b| u16::from_le_bytes([b[0], b[1]]))
        .collect();
    let high: Vec<u64> = high
        .chunks_exact(8)
        .map(|b| {
            let mut word = [0u8; 8];
            word.copy_from_slice(b);
            u64::from_le_bytes(word)
        })
        .collect();
    if patterns.first() != Some(&Pattern::default()) {
        return Err(corrupt("pattern 0 is not the empty pattern".into()));
    }
    let past = index.iter().enumerate().any(|(code, &low)| {
        let top = (high[code / 64] >> (code % 64)) as usize & 1;
        usize::from(low) | top << 16 >= patterns.len()
    });
    if past {
        return Err(corrupt("an index past the patterns".into()));
    }
    Ok(Table::from_parts(index, high, patterns, 0.0))
}

/// Loads `rule`'s table from `dir`.
pub fn load(dir: &Path, rule: Rule) -> Result<Table, CacheError> {
    let path = path(dir, rule);
    let mut bytes = Vec::new();
    match fs::File::open(&path) {
        Ok(mut file) => file
            .read_to_end(&mut bytes)
            .map_err(|source| CacheError::Io {
                path: path.display().to_string(),
                source,
            })?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(CacheError::Missing),
        Err(source) => {
            return Err(CacheError::Io {
                path: path.display().to_string(),
                source,
            });
        }
    };
    decode(&bytes, rule, &path)
}

/// Writes `rule`'s table into `dir` atomically (temporary file, fsync, rename).
pub fn store(dir: &Path, rule: Rule, table: &Table) -> Result<PathBuf, CacheError> {
    let path = path(dir, rule);
    let io = |source| CacheError::Io {
        path: path.display().to_string(),
        source,
    };
    fs::create_dir_all(dir).map_err(io)?;
    let mut file = tempfile::NamedTempFile::new_in(dir).map_err(io)?;
    file.write_all(&encode(table, rule)).map_err(io)?;
    file.as_file().sync_all().map_err(io)?;
    file.persist(&path).map_err(|e| io(e.error))?;
    Ok(path)
}

/// The table of `rule` from the cache in `dir`, or built (and then stored there). Never fails:
/// a cache that cannot be read or written only costs the build.
pub fn load_or_build(dir: Option<&Path>, rule: Rule) -> (Table, Outcome) {
    let Some(dir) = dir else {
        return (
            Table::build(rule),
            Outcome::BuiltWithoutCache("no cache folder on this platform".into()),
        );
    };
    let complaint = match load(dir, rule) {
        Ok(table) => return (table, Outcome::Loaded(path(dir, rule))),
        Err(CacheError::Missing) => None,
        Err(e) => Some(e.to_string()),
    };
    let table = Table::build(rule);
    let outcome = match (store(dir, rule, &table), complaint) {
        (Ok(path), None) => Outcome::Built(path),
        (Ok(path), Some(why)) => {
            Outcome::BuiltWithoutCache(format!("{why}; rebuilt it and wrote {}", path.display()))
        }
        (Err(e), Some(why)) => {
            Outcome::BuiltWithoutCache(format!("{why}; rebuilt it, but cannot write it: {e}"))
        }
        (Err(e), None) => Outcome::BuiltWithoutCache(format!("cannot write the table cache: {e}")),
    };
    (table, outcome)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_survives_the_round_trip_and_every_corruption_is_caught() {
        let dir = tempfile::tempdir().unwrap();
        let rule = Rule::Standard;
        let (built, outcome) = load_or_build(Some(dir.path()), rule);
        assert!(matches!(outcome, Outcome::Built(_)), "{outcome:?}");
        let (loaded, outcome) = load_or_build(Some(dir.path()), rule);
        assert!(matches!(outcome, Outcome::Loaded(_)), "{outcome:?}");
        assert_eq!(loaded.indices(), built.indices());
        assert_eq!(loaded.high_bits(), built.high_bits());
        assert_eq!(loaded.patterns(), built.patterns());
        // The other rule's file is a different file.
        assert!(matches!(
            load(dir.path(), Rule::Freestyle),
            Err(CacheError::Missing)
        ));

        let file = path(dir.path(), rule);
        let good = fs::read(&file).unwrap();
        let mut flipped = good.clone();
        flipped[good.len() / 2] ^= 0x10;
        let cases: [(&str, Vec<u8>); 4] = [
            ("truncated", good[..good.len() - 1000].to_vec()),
            ("empty", Vec::new()),
            ("bit flip", flipped),
            ("other rule", {
                let mut b = good.clone();
                b[12] = 0;
                b
            }),
        ];
        for (what, bytes) in cases {
            fs::write(&file, &bytes).unwrap();
            assert!(
                matches!(load(dir.path(), rule), Err(CacheError::Corrupt { .. })),
                "{what}"
            );
            let (rebuilt, outcome) = load_or_build(Some(dir.path()), rule);
            match outcome {
                Outcome::BuiltWithoutCache(why) => assert!(why.contains("rebuilt"), "{why}"),
                other => panic!("{what}: {other:?}"),
            }
            assert_eq!(rebuilt.indices(), built.indices());
            // … and the rebuilt file is good again.
            assert!(load(dir.path(), rule).is_ok(), "{what}");
        }
    }
}
