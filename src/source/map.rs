//! Memory maps of regular files that a truncation cannot kill.
//!
//! Reading a large file through a map instead of `read` saves the kernel's
//! copy of every byte: 12% to 14% of `cctape stats`' CPU on the 256 MiB
//! archive, 2% to 9% on partial-message streams (BENCHMARKS.md, "Reading against
//! mapping"). A plain map has one danger: when the file is truncated while
//! it is mapped (`logrotate copytruncate`), touching a page past the new
//! end raises SIGBUS, and that kills the process.
//!
//! So a map made here is registered, and a SIGBUS handler (installed once,
//! the first time a file is mapped) puts zeroed pages in place of the
//! pages from the fault to the map's end and marks the map as cut
//! ([`SafeMap::cut`]). The reader then never hands out a line it cannot
//! vouch for: it checks the mark (and, for a last line without LF, the
//! file's size) and reads the rest of the file with `read` from the line's
//! start, where the shrinking is told as a read tells it. A SIGBUS outside
//! every registered map goes to the handler that was there before (Rust's
//! own, which tells a stack overflow) or to the default action, so other
//! faults still end the process as they would have. EFL's `eina_mmap`
//! and sapling's `indexedlog` answer the same danger the same way.
//!
//! This is hand-written on `libc` rather than through `signal-hook`:
//! `signal-hook-registry` forbids SIGBUS in its safe API and always calls
//! the previous handler after its own, and the previous handler (Rust's)
//! resets SIGBUS to its default, so the next truncation would kill.
//!
//! Only files that were not written to in the last [`QUIET_FOR`] are
//! mapped: an archive is, a live log is read (a live file may be
//! truncated and written again at the same offsets, and a map would show
//! the new bytes under a line already checked). What is left: a settled
//! file truncated in the microseconds between the check of one line and
//! the fold's reading of it shows that line's bytes past the cut as zeroes
//! (one line's figures garbled, and the shrinking told right after), where
//! a plain map would have killed the process; ripgrep's maps take the same
//! risk without the handler. Linux only; elsewhere every file is read.

use std::fs::File;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// Files smaller than this are read: a map, its faults and its unmap cost
/// about what reading a small file does.
pub(crate) const MAP_AT: u64 = 1 << 20;

/// A file modified more recently than this is read, not mapped: it may be
/// live.
pub(crate) const QUIET_FOR: Duration = Duration::from_secs(2);

/// Mapped bytes are given back to the kernel (`MADV_DONTNEED`, the pages
/// stay in the page cache) once this many are read past, so that a map
/// holds no more of the file in memory than reading does.
pub(crate) const RELEASE_EVERY: usize = 8 << 20;

#[cfg(target_os = "linux")]
pub(crate) use imp::SafeMap;

/// No maps here: every file is read.
#[cfg(not(target_os = "linux"))]
pub(crate) struct SafeMap(std::convert::Infallible);

#[cfg(not(target_os = "linux"))]
impl SafeMap {
    pub(crate) fn new(_: &File, _: u64) -> Option<SafeMap> {
        None
    }
    pub(crate) fn bytes(&self) -> &[u8] {
        match self.0 {}
    }
    pub(crate) fn cut(&self) -> bool {
        match self.0 {}
    }
    pub(crate) fn release(&self, _: usize) {
        match self.0 {}
    }
}

/// True when `file` (of `len` bytes when opened) is worth mapping and
/// looks settled: large enough, a regular file, not modified lately.
pub(crate) fn worth_mapping(file: &File, len: u64) -> bool {
    if !cfg!(target_os = "linux") || len < MAP_AT {
        return false;
    }
    let Ok(meta) = file.metadata() else {
        return false;
    };
    let quiet = meta
        .modified()
        .ok()
        .and_then(|m| m.elapsed().ok())
        .is_some_and(|age| age >= QUIET_FOR);
    meta.is_file() && meta.len() == len && quiet
}

/// A plain file read through a memory map that survives the file being
/// truncated under it (see the module's doc): what
/// [`Sniffed::take_map`](crate::inputs::Sniffed::take_map) gives a reader
/// that cuts a file into chunks itself.
///
/// Its bytes are the file's as it was when opened, except where it was cut
/// since: before handing out bytes, ask [`whole_to`](FileMap::whole_to),
/// and read on from there with [`reader_at`](FileMap::reader_at) when it
/// says no.
pub struct FileMap {
    map: SafeMap,
    file: File,
    len: u64,
    report: super::EndReport,
    /// Bytes before this were given back to the kernel.
    released: AtomicUsize,
}

impl std::fmt::Debug for FileMap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FileMap").field("len", &self.len).finish()
    }
}

impl FileMap {
    /// Map `file`, whose size was `len` when opened; `None` when it cannot
    /// be mapped here (then read it).
    pub(crate) fn new(file: File, len: u64, report: super::EndReport) -> Option<FileMap> {
        let map = SafeMap::new(&file, len)?;
        Some(FileMap {
            map,
            file,
            len,
            report,
            released: AtomicUsize::new(0),
        })
    }

    /// The file's bytes (zeroes where it was cut under the map).
    pub fn bytes(&self) -> &[u8] {
        self.map.bytes()
    }

    /// True when the bytes before `end` are the file's: no page of the map
    /// was found cut, and the file still holds `end` bytes.
    pub fn whole_to(&self, end: u64) -> bool {
        !self.map.cut() && self.file.metadata().is_ok_and(|m| m.len() >= end)
    }

    /// True once a page of the map was found past the file's end (cheap:
    /// one atomic load).
    pub(crate) fn cut(&self) -> bool {
        self.map.cut()
    }

    /// A reader of the file from byte `offset` on, which tells the file
    /// shrinking as reading from the start would (it shares the map's
    /// [`EndReport`](super::EndReport)); an error when no second handle
    /// of the file could be made (`dup`).
    pub fn reader_at(&self, offset: u64) -> std::io::Result<super::FileReader> {
        let file = self.file.try_clone()?;
        Ok(super::FileReader::new(file, self.len, self.report.clone()).resume_at(offset))
    }

    /// Say that the bytes before `upto` will not be read again: every
    /// 8 MiB, their pages are given back to the kernel
    /// (they stay in the page cache), so that the map holds no more of the
    /// file in memory than reading does.
    pub fn release(&self, upto: usize) {
        let before = self.released.load(Ordering::Relaxed);
        if upto.saturating_sub(before) >= RELEASE_EVERY {
            self.map.release(upto);
            self.released.store(upto, Ordering::Relaxed);
        }
    }
}

#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
mod imp {
    use std::cell::UnsafeCell;
    use std::fs::File;
    use std::mem::MaybeUninit;
    use std::sync::Once;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

    /// Maps registered at once, at most; past them, files are read.
    const SLOTS: usize = 64;

    /// A slot's `start` while it is being filled in or emptied: no address
    /// is at or past it, so the handler skips the slot.
    const BUSY: usize = usize::MAX;

    /// One registered map: its first byte and one past its last page, and
    /// whether the handler put zeroed pages into it.
    struct Slot {
        start: AtomicUsize,
        end: AtomicUsize,
        cut: AtomicBool,
    }

    static REGISTRY: [Slot; SLOTS] = [const {
        Slot {
            start: AtomicUsize::new(0),
            end: AtomicUsize::new(0),
            cut: AtomicBool::new(false),
        }
    }; SLOTS];

    /// The page size, read once when the handler is installed.
    static PAGE: AtomicUsize = AtomicUsize::new(4096);

    /// False when the handler could not be installed: nothing is mapped.
    static INSTALLED: AtomicBool = AtomicBool::new(false);
    static INSTALL: Once = Once::new();

    /// The SIGBUS action that was in place before ours, written once before
    /// ours is installed and only read after.
    struct Previous(UnsafeCell<MaybeUninit<libc::sigaction>>);
    // SAFETY: written once, inside `INSTALL`, before the handler that reads
    // it is installed; never written again.
    unsafe impl Sync for Previous {}
    static PREVIOUS: Previous = Previous(UnsafeCell::new(MaybeUninit::zeroed()));

    fn install() -> bool {
        INSTALL.call_once(|| {
            // SAFETY: sysconf has no preconditions.
            let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
            if page > 0 {
                PAGE.store(page as usize, Ordering::Relaxed);
            }
            // SAFETY: `PREVIOUS` is written here only, before our handler
            // (its only reader) is installed; `sigaction` with a null new
            // action only reads the current one into it.
            let read = unsafe {
                libc::sigaction(
                    libc::SIGBUS,
                    std::ptr::null(),
                    (*PREVIOUS.0.get()).as_mut_ptr(),
                )
            };
            if read != 0 {
                return;
            }
            // SAFETY: a zeroed sigaction is a valid value to fill in; the
            // handler has the SA_SIGINFO signature.
            let ok = unsafe {
                let mut action: libc::sigaction = std::mem::zeroed();
                action.sa_sigaction = on_sigbus as *const () as usize;
                action.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
                libc::sigemptyset(&mut action.sa_mask);
                libc::sigaction(libc::SIGBUS, &action, std::ptr::null_mut()) == 0
            };
            INSTALLED.store(ok, Ordering::Release);
        });
        INSTALLED.load(Ordering::Acquire)
    }

    /// The SIGBUS handler: a fault inside a registered map gets zeroed
    /// pages from its page to the map's end and marks the map; any other
    /// goes where it went before. Only async-signal-safe work: atomics and
    /// the `mmap` and `sigaction` system calls.
    extern "C" fn on_sigbus(sig: libc::c_int, info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
        // SAFETY: the kernel hands a valid siginfo to an SA_SIGINFO handler.
        let addr = unsafe { (*info).si_addr() } as usize;
        let page = PAGE.load(Ordering::Relaxed);
        for slot in &REGISTRY {
            let start = slot.start.load(Ordering::Acquire);
            let end = slot.end.load(Ordering::Acquire);
            if start == 0 || start == BUSY || addr < start || addr >= end {
                continue;
            }
            let from = addr & !(page - 1);
            // SAFETY: [from, end) lies inside a live map of ours (registered
            // after it was made, unregistered before it is unmapped), so
            // MAP_FIXED replaces only our own pages, with zeroed ones.
            let p = unsafe {
                libc::mmap(
                    from as *mut libc::c_void,
                    end - from,
                    libc::PROT_READ,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED,
                    -1,
                    0,
                )
            };
            if p != libc::MAP_FAILED {
                slot.cut.store(true, Ordering::Release);
                return;
            }
            break;
        }
        // SAFETY: `PREVIOUS` was filled in before this handler was
        // installed. A handler with SA_SIGINFO takes these three arguments;
        // one without, the signal only. The default (or ignoring) action is
        // put back and the fault, run again on return, takes it.
        unsafe {
            let prev = &*(*PREVIOUS.0.get()).as_ptr();
            let h = prev.sa_sigaction;
            if h == libc::SIG_DFL || h == libc::SIG_IGN {
                libc::sigaction(libc::SIGBUS, prev, std::ptr::null_mut());
            } else if prev.sa_flags & libc::SA_SIGINFO != 0 {
                let f: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) =
                    std::mem::transmute(h);
                f(sig, info, ctx);
            } else {
                let f: extern "C" fn(libc::c_int) = std::mem::transmute(h);
                f(sig);
            }
        }
    }

    /// A read-only map of a regular file whose truncation zeroes the lost
    /// pages instead of killing the process (see the module's doc).
    pub(crate) struct SafeMap {
        map: memmap2::Mmap,
        slot: &'static Slot,
    }

    impl SafeMap {
        /// Map the first `len` bytes of `file` (its size when opened), or
        /// `None` when it cannot be mapped safely (no handler, every slot
        /// taken, the map failed): it is then read.
        pub(crate) fn new(file: &File, len: u64) -> Option<SafeMap> {
            let n = usize::try_from(len).ok().filter(|n| *n > 0)?;
            if !install() {
                return None;
            }
            let slot = REGISTRY.iter().find(|s| {
                s.start
                    .compare_exchange(0, BUSY, Ordering::AcqRel, Ordering::Relaxed)
                    .is_ok()
            })?;
            // SAFETY: the map is read-only (shared with the page cache, so
            // no copy is made). A truncation while it lives zeroes pages
            // through the handler above instead of raising SIGBUS (the slot
            // is filled in below, before any byte is read). Every reader validates the bytes it reads; only files
            // left alone for `QUIET_FOR` are mapped, so that no live writer
            // rewrites bytes already read (module doc).
            let Ok(map) = (unsafe { memmap2::MmapOptions::new().len(n).map(file) }) else {
                slot.start.store(0, Ordering::Release);
                return None;
            };
            let _ = map.advise(memmap2::Advice::Sequential);
            let page = PAGE.load(Ordering::Relaxed);
            let start = map.as_ptr() as usize;
            slot.cut.store(false, Ordering::Relaxed);
            slot.end
                .store((start + n).div_ceil(page) * page, Ordering::Release);
            slot.start.store(start, Ordering::Release);
            Some(SafeMap { map, slot })
        }

        /// The mapped bytes (zeroes where the file was cut; see
        /// [`cut`](SafeMap::cut)).
        pub(crate) fn bytes(&self) -> &[u8] {
            &self.map
        }

        /// True once a page of the map was found past the file's end and
        /// zeroed.
        pub(crate) fn cut(&self) -> bool {
            self.slot.cut.load(Ordering::Acquire)
        }

        /// Hand the pages before byte `upto` back to the kernel: they are
        /// not read again, and the file's pages stay in the page cache.
        pub(crate) fn release(&self, upto: usize) {
            let page = PAGE.load(Ordering::Relaxed);
            let upto = (upto / page) * page;
            if upto > 0 {
                // SAFETY: the range is the start of our own map, whose bytes
                // before `upto` no line handed out still borrows (the
                // reader releases only what it has passed).
                let _ = unsafe {
                    self.map
                        .unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, 0, upto)
                };
            }
        }
    }

    impl Drop for SafeMap {
        fn drop(&mut self) {
            // Unregistered before the map (a field) is unmapped, so the
            // handler never zeroes pages that are no longer ours.
            self.slot.start.store(BUSY, Ordering::Release);
            self.slot.end.store(0, Ordering::Release);
            self.slot.cut.store(false, Ordering::Relaxed);
            self.slot.start.store(0, Ordering::Release);
        }
    }
}
