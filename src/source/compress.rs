//! Compressed inputs: the format told by an input's first bytes
//! ([`Compression::detect`]), whatever its name, and the decoders that undo
//! it, each a well-kept crate's (`flate2`, `zstd`, `liblzma`, `bzip2`,
//! `lz4_flex`), with members or frames read one after another and what
//! follows the last one (zero padding, garbage) left in the
//! [`EndReport`].

use super::EndReport;
use std::io::{self, BufRead, Read};

/// How an input is compressed, told by its first bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Compression {
    /// Not compressed (or not a format we know).
    None,
    /// gzip (`1f 8b`); concatenated members are read as one stream.
    Gzip,
    /// zstd (`28 b5 2f fd`, or a skippable frame `5? 2a 4d 18` as `pzstd`
    /// writes first); concatenated frames are read as one stream.
    Zstd,
    /// xz (`fd 37 7a 58 5a 00`); concatenated streams (`xz -T`, `pixz`,
    /// `cat a.xz b.xz`) are read as one stream, with the zero padding the
    /// format allows between them.
    Xz,
    /// bzip2 (`BZh` and a block size digit); concatenated streams (as
    /// `pbzip2` writes) are read as one stream.
    Bzip2,
    /// LZ4 frames (`04 22 4d 18`, what the `lz4` command writes) and
    /// legacy frames (`02 21 4c 18`, what `lz4 -l` writes); concatenated
    /// frames of either kind are read as one stream, as `lz4 -dc` reads
    /// them.
    Lz4,
}

const ZSTD_MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];
const XZ_MAGIC: [u8; 6] = [0xfd, b'7', b'z', b'X', b'Z', 0];
const LZ4_MAGIC: [u8; 4] = [0x04, 0x22, 0x4d, 0x18];
const LZ4_LEGACY_MAGIC: [u8; 4] = [0x02, 0x21, 0x4c, 0x18];

/// Bytes that tell every format apart (xz's magic is the longest).
pub(super) const MAGIC_MAX: usize = XZ_MAGIC.len();

/// A zstd frame or a skippable frame (magic 0x184D2A50..=0x184D2A5F, little
/// endian) starts here.
fn is_zstd_frame(b: &[u8]) -> bool {
    b.starts_with(&ZSTD_MAGIC)
        || (b.len() >= 4 && b[0] & 0xf0 == 0x50 && b[1..4] == [0x2a, 0x4d, 0x18])
}

/// A bzip2 stream starts here: `BZh` and a block size of 1 to 9 (100k
/// units).
fn is_bzip2_stream(b: &[u8]) -> bool {
    b.len() >= 4 && b.starts_with(b"BZh") && (b'1'..=b'9').contains(&b[3])
}

impl Compression {
    /// Tell the compression from an input's first bytes (six are enough).
    ///
    /// ```
    /// use cctape::source::Compression;
    /// assert_eq!(Compression::detect(&[0x1f, 0x8b, 8, 0]), Compression::Gzip);
    /// assert_eq!(Compression::detect(&[0x28, 0xb5, 0x2f, 0xfd]), Compression::Zstd);
    /// // pzstd starts with a skippable frame.
    /// assert_eq!(Compression::detect(&[0x50, 0x2a, 0x4d, 0x18]), Compression::Zstd);
    /// assert_eq!(Compression::detect(b"\xfd7zXZ\x00\x00\x04"), Compression::Xz);
    /// assert_eq!(Compression::detect(b"BZh91AY&SY"), Compression::Bzip2);
    /// assert_eq!(Compression::detect(&[0x04, 0x22, 0x4d, 0x18, 0x64]), Compression::Lz4);
    /// // `lz4 -l`: a legacy frame.
    /// assert_eq!(Compression::detect(&[0x02, 0x21, 0x4c, 0x18, 0x10, 0]), Compression::Lz4);
    /// assert_eq!(Compression::detect(b"{\"type\""), Compression::None);
    /// // Text that happens to start with `BZh` is not bzip2.
    /// assert_eq!(Compression::detect(b"BZhello"), Compression::None);
    /// ```
    pub fn detect(prefix: &[u8]) -> Compression {
        if prefix.starts_with(&[0x1f, 0x8b]) {
            Compression::Gzip
        } else if is_zstd_frame(prefix) {
            Compression::Zstd
        } else if prefix.starts_with(&XZ_MAGIC) {
            Compression::Xz
        } else if is_bzip2_stream(prefix) {
            Compression::Bzip2
        } else if prefix.starts_with(&LZ4_MAGIC) || prefix.starts_with(&LZ4_LEGACY_MAGIC) {
            Compression::Lz4
        } else {
            Compression::None
        }
    }

    /// The name used in messages (`gzip`, `zstd`, `xz`, `bzip2`, `lz4`,
    /// `none`).
    pub fn name(self) -> &'static str {
        match self {
            Compression::None => "none",
            Compression::Gzip => "gzip",
            Compression::Zstd => "zstd",
            Compression::Xz => "xz",
            Compression::Bzip2 => "bzip2",
            Compression::Lz4 => "lz4",
        }
    }

    /// Wrap `rdr` in the matching decoder (or return it as is). What ends
    /// the compressed data early (trailing garbage, zero padding) ends the
    /// decoded stream and is left in `report`.
    pub(crate) fn decoder<'a, R: Read + 'a>(
        self,
        rdr: R,
        report: &EndReport,
    ) -> io::Result<Box<dyn Read + 'a>> {
        let codec = match self {
            Compression::None => return Ok(Box::new(rdr)),
            Compression::Zstd => return Ok(Box::new(ZstdFrames::new(rdr, report.clone())?)),
            Compression::Gzip => Codec::Gzip,
            Compression::Xz => Codec::Xz,
            Compression::Bzip2 => Codec::Bzip2,
            Compression::Lz4 => Codec::Lz4,
        };
        Ok(Box::new(Members::new(codec, rdr, report.clone())))
    }
}

/// A buffered reader that counts the bytes consumed (the offset in the
/// compressed input) and can look a few bytes ahead.
struct Counted<R> {
    inner: R,
    buf: Box<[u8]>,
    pos: usize,
    end: usize,
    consumed: u64,
    eof: bool,
}

impl<R: Read> Counted<R> {
    fn new(inner: R) -> Counted<R> {
        Counted {
            inner,
            buf: vec![0; 256 << 10].into_boxed_slice(),
            pos: 0,
            end: 0,
            consumed: 0,
            eof: false,
        }
    }

    /// At least `n` bytes ahead, unless the input ends first.
    fn peek(&mut self, n: usize) -> io::Result<&[u8]> {
        while self.end - self.pos < n && !self.eof {
            if self.pos > 0 {
                self.buf.copy_within(self.pos..self.end, 0);
                self.end -= self.pos;
                self.pos = 0;
            }
            match self.inner.read(&mut self.buf[self.end..]) {
                Ok(0) => self.eof = true,
                Ok(k) => self.end += k,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(&self.buf[self.pos..self.end])
    }
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let avail = self.fill_buf()?;
        let n = avail.len().min(out.len());
        out[..n].copy_from_slice(&avail[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl<R: Read> BufRead for Counted<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.pos == self.end && !self.eof {
            self.pos = 0;
            self.end = 0;
            loop {
                match self.inner.read(&mut self.buf) {
                    Ok(0) => self.eof = true,
                    Ok(k) => self.end = k,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                    Err(e) => return Err(e),
                }
                break;
            }
        }
        Ok(&self.buf[self.pos..self.end])
    }

    fn consume(&mut self, n: usize) {
        let n = n.min(self.end - self.pos);
        self.pos += n;
        self.consumed += n as u64;
    }
}

/// After the last member or frame: nothing (fine), zero padding, or data
/// that is not compressed. Reads zero padding to its end to measure it.
fn trailer<R: Read>(
    inner: &mut Counted<R>,
    format: &str,
    unit: &str,
    count: u64,
) -> io::Result<Option<io::Error>> {
    let start = inner.consumed;
    loop {
        let buf = inner.fill_buf()?;
        if buf.is_empty() {
            let zeros = inner.consumed - start;
            return Ok((zeros > 0).then(|| {
                io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!(
                        "{format}: {zeros} zero bytes of padding after the last {unit} \
                         (compressed bytes {start}..{}); ignored",
                        inner.consumed
                    ),
                )
            }));
        }
        match buf.iter().position(|&b| b != 0) {
            Some(i) => {
                inner.consume(i);
                let at = inner.consumed;
                return Ok(Some(io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!(
                        "{format}: trailing data that is not {format} at compressed byte {at}, \
                         after {unit} {count} ended at compressed byte {start}; ignored"
                    ),
                )));
            }
            None => {
                let n = buf.len();
                inner.consume(n);
            }
        }
    }
}

/// The formats read as members one after another, each member through a
/// decoder of its own that stops at the member's end: gzip (`flate2`), xz
/// (`liblzma`), bzip2 (`bzip2`, its pure-Rust back end) and LZ4 frames
/// (`lz4_flex`), all well-kept crates rather than decoders of our own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Codec {
    Gzip,
    Xz,
    Bzip2,
    Lz4,
}

impl Codec {
    /// The compression this codec reads: its name and its magic bytes are
    /// that of [`Compression`], told by one [`Compression::detect`].
    fn compression(self) -> Compression {
        match self {
            Codec::Gzip => Compression::Gzip,
            Codec::Xz => Compression::Xz,
            Codec::Bzip2 => Compression::Bzip2,
            Codec::Lz4 => Compression::Lz4,
        }
    }

    fn name(self) -> &'static str {
        self.compression().name()
    }

    /// What one member is called in this format's own documentation.
    fn unit(self) -> &'static str {
        match self {
            Codec::Gzip => "member",
            Codec::Xz | Codec::Bzip2 => "stream",
            Codec::Lz4 => "frame",
        }
    }

    /// True when another member of this format starts at `head` (at
    /// least [`MAGIC_MAX`] bytes, unless the input ends first).
    fn starts_member(self, head: &[u8]) -> bool {
        Compression::detect(head) == self.compression()
    }

    /// The decoder of the member that starts in `inner`; `legacy` when it
    /// starts with an LZ4 legacy frame's magic.
    fn member<R: Read>(self, inner: Counted<R>, legacy: bool) -> Member<R> {
        match self {
            Codec::Gzip => Member::Gzip(Box::new(flate2::bufread::GzDecoder::new(inner))),
            Codec::Xz => Member::Xz(Box::new(liblzma::bufread::XzDecoder::new(inner))),
            Codec::Bzip2 => Member::Bzip2(Box::new(bzip2::bufread::BzDecoder::new(inner))),
            Codec::Lz4 if legacy => Member::Lz4Legacy(Box::new(Lz4Legacy::new(inner))),
            Codec::Lz4 => Member::Lz4(Box::new(lz4_flex::frame::FrameDecoder::new(inner))),
        }
    }
}

/// One member being decoded; each decoder reads only its member's bytes.
enum Member<R: Read> {
    Gzip(Box<flate2::bufread::GzDecoder<Counted<R>>>),
    Xz(Box<liblzma::bufread::XzDecoder<Counted<R>>>),
    Bzip2(Box<bzip2::bufread::BzDecoder<Counted<R>>>),
    Lz4(Box<lz4_flex::frame::FrameDecoder<Counted<R>>>),
    Lz4Legacy(Box<Lz4Legacy<R>>),
}

impl<R: Read> Member<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Member::Gzip(d) => d.read(buf),
            Member::Xz(d) => d.read(buf),
            Member::Bzip2(d) => d.read(buf),
            Member::Lz4(d) => d.read(buf),
            Member::Lz4Legacy(d) => d.read(buf),
        }
    }

    fn consumed(&self) -> u64 {
        match self {
            Member::Gzip(d) => d.get_ref().consumed,
            Member::Xz(d) => d.get_ref().consumed,
            Member::Bzip2(d) => d.get_ref().consumed,
            Member::Lz4(d) => d.get_ref().consumed,
            Member::Lz4Legacy(d) => d.inner.consumed,
        }
    }

    fn into_inner(self) -> Counted<R> {
        match self {
            Member::Gzip(d) => d.into_inner(),
            Member::Xz(d) => d.into_inner(),
            Member::Bzip2(d) => d.into_inner(),
            Member::Lz4(d) => d.into_inner(),
            Member::Lz4Legacy(d) => d.inner,
        }
    }
}

/// Members one after another, with precise messages: a member cut short or
/// corrupt is an error naming the member and its compressed byte offsets;
/// what follows the last member (zero padding, garbage) ends the stream
/// cleanly and is left in the [`EndReport`]. xz's own stream padding (zero
/// bytes in fours between or after streams) is part of the format and
/// passes quietly.
struct Members<R: Read> {
    codec: Codec,
    state: MemberState<R>,
    member: u64,
    member_start: u64,
    report: EndReport,
}

enum MemberState<R: Read> {
    In(Member<R>),
    Between(Counted<R>),
    Done,
}

impl<R: Read> Members<R> {
    fn new(codec: Codec, rdr: R, report: EndReport) -> Members<R> {
        Members {
            codec,
            state: MemberState::Between(Counted::new(rdr)),
            member: 0,
            member_start: 0,
            report,
        }
    }

    /// Skip xz stream padding (zero bytes, a multiple of four) before the
    /// next stream or the end; other runs of zeros are left to [`trailer`].
    fn skip_xz_padding(&self, inner: &mut Counted<R>) -> io::Result<()> {
        loop {
            let head = inner.peek(4)?;
            if head.len() >= 4 && head[..4] == [0; 4] {
                inner.consume(4);
            } else {
                return Ok(());
            }
        }
    }
}

impl<R: Read> Read for Members<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        loop {
            match std::mem::replace(&mut self.state, MemberState::Done) {
                MemberState::Done => return Ok(0),
                MemberState::In(mut d) => match d.read(buf) {
                    Ok(0) => self.state = MemberState::Between(d.into_inner()),
                    Ok(n) => {
                        self.state = MemberState::In(d);
                        return Ok(n);
                    }
                    Err(e) => {
                        let at = d.consumed();
                        let what = if e.kind() == io::ErrorKind::UnexpectedEof {
                            "the input ends inside it".to_string()
                        } else {
                            e.to_string()
                        };
                        return Err(io::Error::new(
                            e.kind(),
                            format!(
                                "{}: {} {} (from compressed byte {}): {what}; \
                                 stopped at compressed byte {at}",
                                self.codec.name(),
                                self.codec.unit(),
                                self.member,
                                self.member_start
                            ),
                        ));
                    }
                },
                MemberState::Between(mut inner) => {
                    if self.codec == Codec::Xz && self.member > 0 {
                        self.skip_xz_padding(&mut inner)?;
                    }
                    let head = inner.peek(MAGIC_MAX)?;
                    if head.is_empty() && self.member > 0 {
                        return Ok(0);
                    }
                    let legacy = head.starts_with(&LZ4_LEGACY_MAGIC);
                    if self.codec.starts_member(head) || self.member == 0 {
                        self.member += 1;
                        self.member_start = inner.consumed;
                        self.state = MemberState::In(self.codec.member(inner, legacy));
                        continue;
                    }
                    let (name, unit) = (self.codec.name(), self.codec.unit());
                    if let Some(e) = trailer(&mut inner, name, unit, self.member)? {
                        self.report.set(e);
                    }
                    return Ok(0);
                }
            }
        }
    }
}

/// The largest block of an LZ4 legacy frame, decoded: 8 MiB.
const LEGACY_BLOCK: usize = 8 << 20;

/// The largest compressed block of a legacy frame (`LZ4_COMPRESSBOUND` of
/// 8 MiB, as lz4.h defines it): a block size larger than this is the magic
/// of what follows the frame, as `lz4 -dc` reads it.
const LEGACY_BOUND: u32 = (LEGACY_BLOCK + LEGACY_BLOCK / 255 + 16) as u32;

/// One LZ4 legacy frame (`lz4 -l`: the format of LZ4 before its frame
/// format): the magic, then blocks, each its compressed size (4 bytes,
/// little endian) and its bytes, compressed on their own and at most 8 MiB
/// once decoded, with no end mark and no checksum. The frame ends at the
/// input's end or before 4 bytes that are no block size (larger than any
/// block may be: the next frame's magic, or data after the last one, left
/// to [`Members`]). Blocks are decoded with `lz4_flex`'s block API, which
/// does not read this frame format itself.
struct Lz4Legacy<R> {
    inner: Counted<R>,
    started: bool,
    /// The compressed block being read.
    src: Vec<u8>,
    /// The decoded block: `out[at..len]` not handed out yet.
    out: Vec<u8>,
    at: usize,
    len: usize,
    done: bool,
}

impl<R: Read> Lz4Legacy<R> {
    fn new(inner: Counted<R>) -> Lz4Legacy<R> {
        Lz4Legacy {
            inner,
            started: false,
            src: Vec::new(),
            out: Vec::new(),
            at: 0,
            len: 0,
            done: false,
        }
    }

    /// Decode the next block into `out`; false at the frame's end.
    fn next_block(&mut self) -> io::Result<bool> {
        if !self.started {
            self.started = true;
            let magic = self.inner.peek(4)?.len().min(4);
            self.inner.consume(magic);
        }
        let head = self.inner.peek(4)?;
        if head.is_empty() {
            return Ok(false);
        }
        if head.len() < 4 {
            let n = head.len();
            self.inner.consume(n);
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "the input ends inside a block's size",
            ));
        }
        let size = u32::from_le_bytes([head[0], head[1], head[2], head[3]]);
        if size > LEGACY_BOUND {
            return Ok(false);
        }
        if size == 0 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "a block of 0 bytes (corrupt data)",
            ));
        }
        self.inner.consume(4);
        self.src.resize(size as usize, 0);
        self.inner.read_exact(&mut self.src)?;
        // Room for the decoded block: a guess from its compressed size,
        // grown (up to the 8 MiB a block decodes to at most) when short, so
        // that a small input does not take 8 MiB.
        let mut room = (size as usize)
            .saturating_mul(8)
            .clamp(64 << 10, LEGACY_BLOCK);
        self.len = loop {
            if self.out.len() < room {
                self.out.resize(room, 0);
            }
            match lz4_flex::block::decompress_into(&self.src, &mut self.out) {
                Ok(n) => break n,
                Err(lz4_flex::block::DecompressError::OutputTooSmall { .. })
                    if self.out.len() < LEGACY_BLOCK =>
                {
                    room = (self.out.len() * 2).min(LEGACY_BLOCK);
                }
                Err(e) => {
                    return Err(io::Error::new(
                        io::ErrorKind::InvalidData,
                        format!("a corrupt block: {e}"),
                    ));
                }
            }
        };
        self.at = 0;
        Ok(true)
    }
}

impl<R: Read> Read for Lz4Legacy<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        while self.at == self.len {
            if self.done || buf.is_empty() {
                return Ok(0);
            }
            if !self.next_block()? {
                self.done = true;
            }
        }
        let n = buf.len().min(self.len - self.at);
        buf[..n].copy_from_slice(&self.out[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

/// zstd frames (and skippable frames) one after another through one
/// decompression context, with precise messages; what follows the last
/// frame ends the stream cleanly and is left in the [`EndReport`].
struct ZstdFrames<R: Read> {
    inner: Counted<R>,
    dctx: zstd::zstd_safe::DCtx<'static>,
    in_frame: bool,
    frame: u64,
    frame_start: u64,
    done: bool,
    report: EndReport,
}

impl<R: Read> ZstdFrames<R> {
    fn new(rdr: R, report: EndReport) -> io::Result<ZstdFrames<R>> {
        Ok(ZstdFrames {
            inner: Counted::new(rdr),
            dctx: zstd::zstd_safe::DCtx::try_create()
                .ok_or_else(|| io::Error::other("zstd: cannot create a decompression context"))?,
            in_frame: false,
            frame: 0,
            frame_start: 0,
            done: false,
            report,
        })
    }

    fn frame_error(&self, what: &str) -> io::Error {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "zstd: frame {} (from compressed byte {}): {what}; stopped at compressed byte {}",
                self.frame, self.frame_start, self.inner.consumed
            ),
        )
    }
}

impl<R: Read> Read for ZstdFrames<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        use zstd::zstd_safe::{InBuffer, OutBuffer};
        if buf.is_empty() || self.done {
            return Ok(0);
        }
        loop {
            if !self.in_frame {
                let head = self.inner.peek(4)?;
                if head.is_empty() && self.frame > 0 {
                    self.done = true;
                    return Ok(0);
                }
                if !is_zstd_frame(head) && self.frame > 0 {
                    self.done = true;
                    if let Some(e) = trailer(&mut self.inner, "zstd", "frame", self.frame)? {
                        self.report.set(e);
                    }
                    return Ok(0);
                }
                self.in_frame = true;
                self.frame += 1;
                self.frame_start = self.inner.consumed;
            }
            let input = self.inner.fill_buf()?;
            if input.is_empty() {
                self.done = true;
                return Err(self.frame_error("the input ends inside it"));
            }
            let mut src = InBuffer::around(input);
            let mut dst = OutBuffer::around(&mut *buf);
            let r = self.dctx.decompress_stream(&mut dst, &mut src);
            let (used, made) = (src.pos(), dst.pos());
            self.inner.consume(used);
            match r {
                Ok(0) => self.in_frame = false,
                Ok(_) => {}
                Err(code) => {
                    self.done = true;
                    return Err(self.frame_error(zstd::zstd_safe::get_error_name(code)));
                }
            }
            if made > 0 {
                return Ok(made);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::testing::{gzip, read_all};
    use crate::source::{EndReport, Source, SourceKind, decompressing};
    use std::io::Write;

    #[test]
    fn gzip_and_zstd_streams_are_detected_and_decoded() {
        let body = b"{\"type\":\"user\"}\n".repeat(1000);
        let mut gz = gzip(&body);
        // Two members concatenated read as one stream.
        let second = gz.clone();
        gz.extend_from_slice(&second);
        let (c, r) = decompressing(&gz[..]).unwrap();
        assert_eq!(c, Compression::Gzip);
        assert_eq!(read_all(r).unwrap().len(), body.len() * 2);
        let zs = zstd::encode_all(&body[..], 1).unwrap();
        let (c, r) = decompressing(&zs[..]).unwrap();
        assert_eq!(c, Compression::Zstd);
        assert_eq!(read_all(r).unwrap(), body);
        let (c, r) = decompressing(&b"ab"[..]).unwrap();
        assert_eq!(c, Compression::None);
        assert_eq!(read_all(r).unwrap(), b"ab");
    }

    #[test]
    fn zstd_after_a_skippable_frame_is_zstd_and_frames_concatenate() {
        let body = b"{\"type\":\"user\"}\n".repeat(100);
        // A skippable frame (as pzstd writes first), then two frames.
        let mut zs = vec![0x50, 0x2a, 0x4d, 0x18, 4, 0, 0, 0, 1, 2, 3, 4];
        zs.extend(zstd::encode_all(&body[..], 3).unwrap());
        zs.extend([0x5e, 0x2a, 0x4d, 0x18, 0, 0, 0, 0]);
        zs.extend(zstd::encode_all(&body[..], 3).unwrap());
        let report = EndReport::new();
        let s = Source::new(&zs[..], SourceKind::Stream, &report).unwrap();
        assert_eq!(s.compression(), Compression::Zstd);
        assert_eq!(read_all(s.into_reader()).unwrap(), body.repeat(2));
        assert!(report.take().is_none());
    }

    #[test]
    fn data_after_compressed_data_is_reported_with_its_offset() {
        let body = b"{\"type\":\"user\"}\n".repeat(100);
        for (name, packed) in [
            ("gzip", gzip(&body)),
            ("zstd", zstd::encode_all(&body[..], 1).unwrap()),
        ] {
            let end = packed.len();
            let mut padded = packed.clone();
            padded.extend([0u8; 512]);
            let report = EndReport::new();
            let s = Source::new(&padded[..], SourceKind::Stream, &report).unwrap();
            assert_eq!(read_all(s.into_reader()).unwrap(), body, "{name}");
            let e = report.take().expect("padding reported").to_string();
            assert!(
                e.contains("512 zero bytes of padding")
                    && e.contains(&format!("compressed bytes {end}..{}", end + 512)),
                "{name}: {e}"
            );
            let mut garbage = packed.clone();
            garbage.extend([0, 0, b'x', b'y']);
            let report = EndReport::new();
            let s = Source::new(&garbage[..], SourceKind::Stream, &report).unwrap();
            assert_eq!(read_all(s.into_reader()).unwrap(), body, "{name}");
            let e = report.take().expect("garbage reported").to_string();
            assert!(
                e.contains(&format!(
                    "trailing data that is not {name} at compressed byte {}",
                    end + 2
                )),
                "{name}: {e}"
            );
            // Cut inside: an error naming the member or frame.
            let cut = &packed[..packed.len() / 2];
            let s = Source::new(cut, SourceKind::Stream, &EndReport::new()).unwrap();
            let e = read_all(s.into_reader()).unwrap_err().to_string();
            assert!(e.starts_with(&format!("{name}: ")), "{e}");
            assert!(e.contains("from compressed byte 0"), "{e}");
        }
    }

    /// An LZ4 legacy frame (`lz4 -l`) of `body`, in blocks of `block`
    /// bytes, each compressed by `lz4_flex`'s block API.
    fn legacy(body: &[u8], block: usize) -> Vec<u8> {
        let mut out = LZ4_LEGACY_MAGIC.to_vec();
        for b in body.chunks(block) {
            let c = lz4_flex::block::compress(b);
            out.extend_from_slice(&(c.len() as u32).to_le_bytes());
            out.extend_from_slice(&c);
        }
        out
    }

    /// Everything `s` hands out with reads of `size` bytes, and the error
    /// it ended with, if it did.
    fn read_in(s: Source<'_>, size: usize) -> (Vec<u8>, Option<io::Error>) {
        let mut r = s.into_reader();
        let mut got = Vec::new();
        let mut buf = vec![0u8; size];
        loop {
            match r.read(&mut buf) {
                Ok(0) => return (got, None),
                Ok(n) => got.extend_from_slice(&buf[..n]),
                Err(e) => return (got, Some(e)),
            }
        }
    }

    fn body(n: usize) -> Vec<u8> {
        (0..n)
            .flat_map(|i| {
                format!(
                    "{{\"type\":\"user\",\"n\":{i},\"t\":\"{}\"}}\n",
                    "ab".repeat(i % 13)
                )
                .into_bytes()
            })
            .collect()
    }

    #[test]
    fn lz4_legacy_frames_read_as_lz4_dc_reads_them_at_every_read_size() {
        let body = body(400);
        let modern = {
            let mut lz = lz4_flex::frame::FrameEncoder::new(Vec::new());
            lz.write_all(&body).unwrap();
            lz.finish().unwrap()
        };
        let one = legacy(&body, 1000);
        let cases: Vec<(&str, Vec<u8>, Vec<u8>)> = vec![
            ("one block", legacy(&body, 1 << 20), body.clone()),
            ("many blocks", one.clone(), body.clone()),
            (
                "two legacy frames",
                [one.clone(), one.clone()].concat(),
                body.repeat(2),
            ),
            (
                "legacy then frame",
                [one.clone(), modern.clone()].concat(),
                body.repeat(2),
            ),
            (
                "frame then legacy",
                [modern.clone(), one.clone()].concat(),
                body.repeat(2),
            ),
            (
                "empty (the magic alone)",
                LZ4_LEGACY_MAGIC.to_vec(),
                Vec::new(),
            ),
        ];
        for (what, packed, want) in &cases {
            for size in (1..40).chain([777, 1 << 16]) {
                let report = EndReport::new();
                let s = Source::new(&packed[..], SourceKind::Stream, &report).unwrap();
                assert_eq!(s.compression(), Compression::Lz4, "{what}");
                let (got, err) = read_in(s, size);
                assert!(err.is_none(), "{what}, reads of {size}: {err:?}");
                assert!(got == *want, "{what}, reads of {size}");
                assert!(report.take().is_none(), "{what}");
            }
        }
        assert_eq!(decompressing(&one[..]).unwrap().0, Compression::Lz4);
    }

    #[test]
    fn a_cut_or_corrupt_lz4_legacy_frame_is_an_error_with_its_position() {
        let body = body(300);
        let packed = legacy(&body, 700);
        // Where blocks end: a frame has no end mark, so a cut there is an
        // end (as for `lz4 -dc`); anywhere else, an error.
        let mut ends = vec![4usize];
        let mut at = 4;
        while at < packed.len() {
            let n = u32::from_le_bytes(packed[at..at + 4].try_into().unwrap()) as usize;
            at += 4 + n;
            ends.push(at);
        }
        // Shorter than the magic, the bytes are not LZ4.
        for cut in 4..packed.len() {
            let s = Source::new(&packed[..cut], SourceKind::Stream, &EndReport::new()).unwrap();
            let (got, err) = read_in(s, 333);
            assert!(body.starts_with(&got), "cut at {cut}: not a prefix");
            match err {
                None => assert!(ends.contains(&cut), "cut at {cut}: no error"),
                Some(e) => {
                    assert!(!ends.contains(&cut), "cut at {cut}: {e}");
                    let e = e.to_string();
                    assert!(
                        e.starts_with("lz4: frame 1 (from compressed byte 0): ")
                            && e.contains(&format!("stopped at compressed byte {cut}")),
                        "cut at {cut}: {e}"
                    );
                }
            }
        }
        // A second frame cut: its number and start.
        let two = [packed.clone(), packed.clone()].concat();
        let cut = &two[..packed.len() + 10];
        let (got, err) = read_in(
            Source::new(cut, SourceKind::Stream, &EndReport::new()).unwrap(),
            100,
        );
        assert_eq!(got, body);
        let e = err.expect("cut inside the second frame").to_string();
        assert!(
            e.starts_with(&format!(
                "lz4: frame 2 (from compressed byte {}): ",
                packed.len()
            )),
            "{e}"
        );
        // A corrupt block: said, with where it stopped.
        let mut bad = packed.clone();
        bad[9] = 0xff;
        bad[10] = 0xff;
        let (got, err) = read_in(
            Source::new(&bad[..], SourceKind::Stream, &EndReport::new()).unwrap(),
            100,
        );
        assert!(body.starts_with(&got));
        assert!(err.is_some_and(|e| e.to_string().starts_with("lz4: frame 1")));
        // A block of 0 bytes is corrupt; data after the last frame is said.
        let mut zero = LZ4_LEGACY_MAGIC.to_vec();
        zero.extend([0, 0, 0, 0]);
        let (_, err) = read_in(
            Source::new(&zero[..], SourceKind::Stream, &EndReport::new()).unwrap(),
            100,
        );
        assert!(err.is_some_and(|e| e.to_string().contains("a block of 0 bytes")));
        let mut garbage = packed.clone();
        garbage.extend(b"\xff\xff\xff\xffnot lz4");
        let report = EndReport::new();
        let (got, err) = read_in(
            Source::new(&garbage[..], SourceKind::Stream, &report).unwrap(),
            100,
        );
        assert!(err.is_none());
        assert_eq!(got, body);
        let e = report.take().expect("trailing data reported").to_string();
        assert!(
            e.contains(&format!(
                "trailing data that is not lz4 at compressed byte {}",
                packed.len()
            )),
            "{e}"
        );
    }

    /// Any bytes behind the legacy magic (a plausible block size first, or
    /// not): the read ends, with an error or not, never with a panic, and
    /// hands out no more than one block a block size read.
    #[test]
    fn any_bytes_behind_the_legacy_magic_end_without_a_panic() {
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for n in 0..3000usize {
            let mut bytes = LZ4_LEGACY_MAGIC.to_vec();
            if n % 2 == 0 {
                bytes.extend_from_slice(&((n % 250) as u32 + 1).to_le_bytes());
            }
            for _ in 0..n % 400 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                bytes.push(x as u8);
            }
            let s = Source::new(&bytes[..], SourceKind::Stream, &EndReport::new()).unwrap();
            let (got, _) = read_in(s, 1 + n % 97);
            assert!(got.len() <= bytes.len().div_ceil(4) * LEGACY_BLOCK, "{n}");
        }
    }
}
