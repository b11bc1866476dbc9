//! The primitives: the splitmix64 PRNG, the JSON writer, ids and
//! timestamps.

// ---------------------------------------------------------------------------
// PRNG (splitmix64)
// ---------------------------------------------------------------------------

pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n` (`n >= 1`).
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next()) * u128::from(n.max(1))) >> 64) as u64
    }
    /// Uniform in `lo..=hi`.
    pub(crate) fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.below(hi - lo + 1)
    }
    pub(crate) fn urange(&mut self, lo: usize, hi: usize) -> usize {
        self.range(lo as u64, hi as u64) as usize
    }
    /// True with probability `per_mille / 1000`.
    pub(crate) fn pm(&mut self, per_mille: u64) -> bool {
        self.below(1000) < per_mille
    }
    pub(crate) fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    pub(crate) fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len() as u64) as usize]
    }
    pub(crate) fn ps(&mut self, xs: &[&'static str]) -> &'static str {
        xs[self.below(xs.len() as u64) as usize]
    }
    /// Roughly log-uniform in `lo..=hi` without libm: a random octave, then a
    /// uniform value inside it.
    pub(crate) fn log_uniform(&mut self, lo: u64, hi: u64) -> u64 {
        let lo = lo.max(1);
        let mut octaves = 0u64;
        while (lo << (octaves + 1)) <= hi {
            octaves += 1;
        }
        let base = lo << self.below(octaves + 1);
        (base + self.below(base)).min(hi)
    }
}

// ---------------------------------------------------------------------------
// JSON writing
// ---------------------------------------------------------------------------

const fn esc_table() -> [u8; 256] {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 0x20 {
        t[i] = b'u';
        i += 1;
    }
    t[b'\n' as usize] = b'n';
    t[b'\r' as usize] = b'r';
    t[b'\t' as usize] = b't';
    t[8] = b'b';
    t[12] = b'f';
    t[b'"' as usize] = b'"';
    t[b'\\' as usize] = b'\\';
    t
}

static ESC: [u8; 256] = esc_table();
pub(crate) const HEX: &[u8; 16] = b"0123456789abcdef";

/// Appends `s` JSON-escaped (without quotes). Non-ASCII UTF-8, including
/// U+2028/U+2029, is copied raw, which JSON allows.
pub(crate) fn escape_into(out: &mut Vec<u8>, s: &[u8]) {
    let mut start = 0;
    for (i, &b) in s.iter().enumerate() {
        let e = ESC[b as usize];
        if e == 0 {
            continue;
        }
        out.extend_from_slice(&s[start..i]);
        if e == b'u' {
            out.extend_from_slice(b"\\u00");
            out.push(HEX[(b >> 4) as usize]);
            out.push(HEX[(b & 15) as usize]);
        } else {
            out.push(b'\\');
            out.push(e);
        }
        start = i + 1;
    }
    out.extend_from_slice(&s[start..]);
}

pub(crate) fn push_u64(out: &mut Vec<u8>, mut v: u64) {
    let mut tmp = [0u8; 20];
    let mut i = tmp.len();
    loop {
        i -= 1;
        tmp[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    out.extend_from_slice(&tmp[i..]);
}

/// Minimal JSON writer: commas are inserted automatically from the last byte.
#[derive(Default)]
pub(crate) struct W {
    pub(crate) b: Vec<u8>,
}

impl W {
    pub(crate) fn sep(&mut self) {
        match self.b.last() {
            None | Some(b'{' | b'[' | b':' | b'\n') => {}
            _ => self.b.push(b','),
        }
    }
    pub(crate) fn k(&mut self, key: &str) {
        self.sep();
        self.b.push(b'"');
        self.b.extend_from_slice(key.as_bytes());
        self.b.extend_from_slice(b"\":");
    }
    pub(crate) fn open(&mut self) {
        self.sep();
        self.b.push(b'{');
    }
    pub(crate) fn close(&mut self) {
        self.b.push(b'}');
    }
    pub(crate) fn arr(&mut self) {
        self.sep();
        self.b.push(b'[');
    }
    pub(crate) fn arr_end(&mut self) {
        self.b.push(b']');
    }
    pub(crate) fn s(&mut self, v: &str) {
        self.sep();
        self.b.push(b'"');
        escape_into(&mut self.b, v.as_bytes());
        self.b.push(b'"');
    }
    /// A string whose body is already escaped.
    pub(crate) fn se(&mut self, esc: &[u8]) {
        self.sep();
        self.b.push(b'"');
        self.b.extend_from_slice(esc);
        self.b.push(b'"');
    }
    pub(crate) fn n(&mut self, v: u64) {
        self.sep();
        push_u64(&mut self.b, v);
    }
    pub(crate) fn f(&mut self, v: f64) {
        self.sep();
        self.b.extend_from_slice(format!("{v}").as_bytes());
    }
    pub(crate) fn bool(&mut self, v: bool) {
        self.sep();
        self.b.extend_from_slice(if v { b"true" } else { b"false" });
    }
    pub(crate) fn null(&mut self) {
        self.sep();
        self.b.extend_from_slice(b"null");
    }
    /// An already serialized JSON value.
    pub(crate) fn raw(&mut self, v: &[u8]) {
        self.sep();
        self.b.extend_from_slice(v);
    }
    pub(crate) fn ks(&mut self, k: &str, v: &str) {
        self.k(k);
        self.s(v);
    }
    pub(crate) fn kse(&mut self, k: &str, v: &[u8]) {
        self.k(k);
        self.se(v);
    }
    pub(crate) fn kn(&mut self, k: &str, v: u64) {
        self.k(k);
        self.n(v);
    }
    pub(crate) fn kf(&mut self, k: &str, v: f64) {
        self.k(k);
        self.f(v);
    }
    pub(crate) fn kb(&mut self, k: &str, v: bool) {
        self.k(k);
        self.bool(v);
    }
    pub(crate) fn knull(&mut self, k: &str) {
        self.k(k);
        self.null();
    }
    pub(crate) fn kraw(&mut self, k: &str, v: &[u8]) {
        self.k(k);
        self.raw(v);
    }
}

// ---------------------------------------------------------------------------
// Ids and time
// ---------------------------------------------------------------------------

const B58: &[u8] = b"123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
const B64: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

pub(crate) fn uuid(rng: &mut Rng) -> String {
    let hi = rng.next();
    let lo = rng.next();
    let hi = (hi & !0xF000) | 0x4000;
    let lo = (lo & !(0xC000u64 << 48)) | (0x8000u64 << 48);
    let mut s = String::with_capacity(36);
    for (i, k) in (0..16).rev().enumerate() {
        if i == 8 || i == 12 {
            s.push('-');
        }
        s.push(HEX[((hi >> (k * 4)) & 15) as usize] as char);
    }
    for (i, k) in (0..16).rev().enumerate() {
        if i == 0 || i == 4 {
            s.push('-');
        }
        s.push(HEX[((lo >> (k * 4)) & 15) as usize] as char);
    }
    s
}

pub(crate) fn b58_id(rng: &mut Rng, prefix: &str, n: usize) -> String {
    let mut s = String::with_capacity(prefix.len() + n);
    s.push_str(prefix);
    for _ in 0..n {
        s.push(B58[rng.below(B58.len() as u64) as usize] as char);
    }
    s
}

pub(crate) fn agent_id(rng: &mut Rng) -> String {
    let v = rng.next();
    let mut s = String::from("a");
    for k in 0..16 {
        s.push(HEX[((v >> (k * 4)) & 15) as usize] as char);
    }
    s
}

pub(crate) fn signature(rng: &mut Rng) -> String {
    let n = rng.range(60, 300) * 4;
    let mut s = String::from("Eq");
    for _ in 2..n - 2 {
        s.push(B64[rng.below(64) as usize] as char);
    }
    s.push_str("==");
    s
}

/// `YYYY-MM-DDTHH:MM:SS.mmmZ` for milliseconds since the Unix epoch.
pub(crate) fn iso(ms: u64) -> String {
    let secs = ms / 1000;
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem / 60 % 60,
        rem % 60,
        ms % 1000
    )
}
