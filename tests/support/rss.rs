//! The process's peak resident memory, for the tests that bound it (each
//! in a binary of its own, so that the peak is that test's).
#![allow(dead_code)]

/// Peak resident set size in bytes (`VmHWM` of `/proc/self/status`);
/// `None` where there is no such file.
pub fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}
