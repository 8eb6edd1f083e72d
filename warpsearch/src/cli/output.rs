//! Output helpers: `--out` files written atomically, and number formatting.

use super::*;

/// An `--out` file written beside its final name and renamed over it only when the run
/// succeeds: an existing file is never truncated by a run that fails or is interrupted, and
/// a reader never sees half a file. (A path that exists and is not a regular file, such as
/// `/dev/stdout`, is written directly.)
pub(crate) struct AtomicOut {
    pub(crate) path: std::path::PathBuf,
    pub(crate) writer: std::io::BufWriter<Box<dyn std::io::Write>>,
    pub(crate) temp: Option<tempfile::TempPath>,
}

impl AtomicOut {
    /// Creates the temporary file now, so an unwritable place fails before the search.
    pub(crate) fn create(path: &std::path::Path) -> Result<AtomicOut, Error> {
        let io = |source| Error::Io {
            path: path.display().to_string(),
            source,
        };
        let special = std::fs::metadata(path).is_ok_and(|m| !m.is_file());
        if special {
            let file = std::fs::OpenOptions::new()
                .write(true)
                .open(path)
                .map_err(io)?;
            return Ok(AtomicOut {
                path: path.to_path_buf(),
                writer: std::io::BufWriter::new(Box::new(file)),
                temp: None,
            });
        }
        let dir = match path.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir,
            _ => std::path::Path::new("."),
        };
        let (file, temp) = tempfile::Builder::new()
            .prefix(".warpsearch-")
            .tempfile_in(dir)
            .map_err(io)?
            .into_parts();
        Ok(AtomicOut {
            path: path.to_path_buf(),
            writer: std::io::BufWriter::new(Box::new(file)),
            temp: Some(temp),
        })
    }

    pub(crate) fn io(&self) -> impl Fn(std::io::Error) -> Error + '_ {
        |source| Error::Io {
            path: self.path.display().to_string(),
            source,
        }
    }

    /// Writes one line.
    pub(crate) fn line(&mut self, text: std::fmt::Arguments) -> Result<(), Error> {
        use std::io::Write as _;
        let result = writeln!(self.writer, "{text}");
        result.map_err(self.io())
    }

    /// Flushes, syncs and renames the file into place.
    pub(crate) fn commit(mut self) -> Result<(), Error> {
        use std::io::Write as _;
        let flushed = self.writer.flush();
        flushed.map_err(self.io())?;
        if let Some(temp) = self.temp.take() {
            let persisted = temp.persist(&self.path);
            persisted.map_err(|e| Error::Io {
                path: self.path.display().to_string(),
                source: e.error,
            })?;
        }
        Ok(())
    }
}

/// "1 solution", "14,200 solutions".
pub(crate) fn plural(count: impl Into<u128>, noun: &str) -> String {
    let count = count.into();
    if count == 1 {
        format!("1 {noun}")
    } else {
        format!("{} {noun}s", group(count))
    }
}

/// Seconds with three decimals, or three significant digits below 0.1 s.
pub(crate) use warpsearch::predict::preview::seconds;

/// 1234567 → "1,234,567".
pub(crate) fn group(value: impl Into<u128>) -> String {
    let value = value.into();
    let digits = value.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// 1.23e9 → "1.23 G nodes/s".
pub(crate) fn per_second(rate: f64, unit: &str) -> String {
    let (scaled, prefix) = match rate {
        r if r >= 1e12 => (r / 1e12, "T"),
        r if r >= 1e9 => (r / 1e9, "G"),
        r if r >= 1e6 => (r / 1e6, "M"),
        r if r >= 1e3 => (r / 1e3, "k"),
        r => (r, ""),
    };
    format!("{scaled:.2} {prefix}{unit}/s")
}
