//! Pricing: what tokens cost, for records that do not say (session
//! transcripts carry no `total_cost_usd`, and `costUSD` only in old CLI
//! versions).
//!
//! A [`PriceTable`] maps model names to [`ModelPrices`]: US dollars per
//! million tokens for input, output, cache writes that live 5 minutes and 1
//! hour, and cache reads, with the long-context tier where a family has one
//! and the fast-mode multiplier. The table shipped in the crate
//! ([`PriceTable::builtin`]) says the date its prices were taken and where
//! from; a user's file in the same JSON shape overrides it
//! ([`PriceTable::from_file`], [`PriceTable::overriding`]).
//!
//! Model names are matched after removing what providers add around them
//! (`anthropic/`, `us.anthropic.`, `-v1:0`, `@20250929`, `[1m]`): the entry
//! whose `match` is the longest prefix of the name, ending at the name's end
//! or at a `-`, wins (`claude-sonnet-4-5` prices `claude-sonnet-4-5-20250929`;
//! `claude-sonnet-4` prices `claude-sonnet-4-20250514`).
//!
//! ```
//! use cctape::pricing::{PriceTable, RequestTokens};
//!
//! let table = PriceTable::builtin();
//! let usage = RequestTokens { input: 100_000, output: 10_000, ..RequestTokens::default() };
//! // $3 per million input tokens, $15 per million output tokens.
//! let cost = table.cost("claude-sonnet-4-5-20250929", &usage).unwrap();
//! assert!((cost - 0.45).abs() < 1e-12);
//! assert_eq!(table.cost("gpt-4o", &usage), None);
//! ```

use std::fmt;
use std::path::Path;
use std::sync::OnceLock;

/// Tokens of one API request, as a price applies to them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct RequestTokens {
    /// Input tokens not read from or written to the cache.
    pub input: u64,
    /// Output tokens.
    pub output: u64,
    /// Input tokens read from the cache.
    pub cache_read: u64,
    /// Input tokens written to a cache entry that lives 5 minutes.
    pub cache_write_5m: u64,
    /// Input tokens written to a cache entry that lives 1 hour.
    pub cache_write_1h: u64,
    /// The request ran in fast mode (`usage.speed == "fast"`).
    pub fast: bool,
}

impl RequestTokens {
    /// Cache writes of both lifetimes.
    pub fn cache_write(&self) -> u64 {
        self.cache_write_5m + self.cache_write_1h
    }

    /// Every input token the request carried: what selects a long-context
    /// tier.
    pub fn context(&self) -> u64 {
        self.input
            .saturating_add(self.cache_read)
            .saturating_add(self.cache_write())
    }

    /// Input, output, cache reads and cache writes added.
    pub fn total(&self) -> u64 {
        self.context().saturating_add(self.output)
    }
}

/// Prices of one tier, in US dollars per million tokens.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TierPrices {
    /// Input tokens.
    pub input: f64,
    /// Output tokens.
    pub output: f64,
    /// Cache writes that live 5 minutes.
    pub cache_write_5m: f64,
    /// Cache writes that live 1 hour.
    pub cache_write_1h: f64,
    /// Cache reads.
    pub cache_read: f64,
}

impl TierPrices {
    fn cost(&self, u: &RequestTokens) -> f64 {
        (u.input as f64 * self.input
            + u.output as f64 * self.output
            + u.cache_write_5m as f64 * self.cache_write_5m
            + u.cache_write_1h as f64 * self.cache_write_1h
            + u.cache_read as f64 * self.cache_read)
            / 1e6
    }
}

/// The prices of a model family.
#[derive(Clone, Debug, PartialEq)]
pub struct ModelPrices {
    /// Prices up to the long-context threshold (or always, without one).
    pub base: TierPrices,
    /// Above `threshold` input tokens (input, cache reads and writes of the
    /// request added), every token of the request is billed at these
    /// prices, not only those past the threshold (Anthropic's rule for
    /// long-context requests).
    pub long_context: Option<(u64, TierPrices)>,
    /// What fast mode multiplies the price by (1 where the family has none).
    pub fast_multiplier: f64,
}

impl ModelPrices {
    /// The cost of `usage`, in US dollars.
    ///
    /// ```
    /// use cctape::pricing::{PriceTable, RequestTokens};
    /// let p = PriceTable::builtin().prices("claude-sonnet-4-5").unwrap();
    /// // 250k tokens of context: the whole request is long-context.
    /// let u = RequestTokens { cache_read: 250_000, output: 1_000, ..RequestTokens::default() };
    /// assert!((p.cost(&u) - (0.25 * 0.6 + 0.001 * 22.5)).abs() < 1e-12);
    /// ```
    pub fn cost(&self, usage: &RequestTokens) -> f64 {
        let tier = match self.long_context {
            Some((threshold, ref long)) if usage.context() > threshold => long,
            _ => &self.base,
        };
        let fast = if usage.fast {
            self.fast_multiplier
        } else {
            1.0
        };
        tier.cost(usage) * fast
    }
}

/// A price table: model families and their prices, with the date the
/// prices were taken and where from.
///
/// ```
/// use cctape::pricing::{PriceTable, RequestTokens};
///
/// // The shipped table, with one family's prices overridden (the shape of
/// // `--pricing FILE`).
/// let mine = PriceTable::from_json(r#"{"taken": "2026-11-01", "source": "our invoice",
///   "models": [{"match": "claude-sonnet-4-5", "input": 2, "output": 10}]}"#).unwrap();
/// let table = PriceTable::builtin().overriding(&mine);
/// let usage = RequestTokens { input: 1_000_000, output: 100_000, ..RequestTokens::default() };
/// let cost = table.cost("claude-sonnet-4-5-20250929", &usage).unwrap();
/// assert!((cost - 3.0).abs() < 1e-12);
/// // Families not overridden keep the shipped prices.
/// assert!(table.cost("claude-opus-4-1", &usage).is_some());
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct PriceTable {
    taken: String,
    source: String,
    models: Vec<(String, ModelPrices)>,
    /// How many leading entries come from an override (searched first).
    overrides: usize,
}

/// A price file that cannot be used: what is wrong, and where.
#[derive(Debug)]
pub struct PricingError {
    what: String,
}

impl fmt::Display for PricingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.what)
    }
}

impl std::error::Error for PricingError {}

fn bad(what: impl Into<String>) -> PricingError {
    PricingError { what: what.into() }
}

impl PriceTable {
    /// The table shipped in the crate (`src/pricing/prices.json`).
    pub fn builtin() -> &'static PriceTable {
        static TABLE: OnceLock<PriceTable> = OnceLock::new();
        TABLE.get_or_init(
            || match PriceTable::from_json(include_str!("prices.json")) {
                Ok(t) => t,
                // The shipped file is checked by a test; an empty table is the
                // only thing to fall back to.
                Err(_) => PriceTable {
                    taken: String::new(),
                    source: String::new(),
                    models: Vec::new(),
                    overrides: 0,
                },
            },
        )
    }

    /// Read a table from JSON:
    ///
    /// ```json
    /// {"taken": "2026-11-30", "source": "where the prices come from",
    ///  "models": [{"match": "claude-sonnet-4-5", "input": 3, "output": 15,
    ///              "cache_write_5m": 3.75, "cache_write_1h": 6, "cache_read": 0.3,
    ///              "fast_multiplier": 1,
    ///              "long_context": {"threshold": 200000, "input": 6, "output": 22.5,
    ///                               "cache_write_5m": 7.5, "cache_write_1h": 12, "cache_read": 0.6}}]}
    /// ```
    ///
    /// Prices are US dollars per million tokens. `cache_write_5m` defaults
    /// to 1.25 times `input`, `cache_write_1h` to 2 times, `cache_read` to
    /// 0.1 times, `fast_multiplier` to 1; `taken` and `source` are optional.
    pub fn from_json(text: &str) -> Result<PriceTable, PricingError> {
        let v: serde_json::Value =
            serde_json::from_str(text).map_err(|e| bad(format!("price table is not JSON: {e}")))?;
        let text_of = |k: &str| v.get(k).and_then(|x| x.as_str()).unwrap_or("").to_owned();
        let Some(list) = v.get("models").and_then(|m| m.as_array()) else {
            return Err(bad("price table: expected a `models` array"));
        };
        let mut models = Vec::with_capacity(list.len());
        for (i, m) in list.iter().enumerate() {
            let Some(name) = m.get("match").and_then(|x| x.as_str()) else {
                return Err(bad(format!(
                    "price table: models[{i}] has no string `match`"
                )));
            };
            let base =
                tier(m).map_err(|e| bad(format!("price table: models[{i}] ({name}): {e}")))?;
            let long_context = match m.get("long_context") {
                None | Some(serde_json::Value::Null) => None,
                Some(lc) => {
                    let Some(t) = lc.get("threshold").and_then(|x| x.as_u64()) else {
                        return Err(bad(format!(
                            "price table: models[{i}] ({name}): long_context needs a `threshold` in tokens"
                        )));
                    };
                    let p = tier(lc).map_err(|e| {
                        bad(format!(
                            "price table: models[{i}] ({name}) long_context: {e}"
                        ))
                    })?;
                    Some((t, p))
                }
            };
            let fast_multiplier = match m.get("fast_multiplier") {
                None | Some(serde_json::Value::Null) => 1.0,
                Some(x) => price(x).ok_or_else(|| {
                    bad(format!(
                        "price table: models[{i}] ({name}): bad `fast_multiplier`"
                    ))
                })?,
            };
            models.push((
                normalize(name).to_owned(),
                ModelPrices {
                    base,
                    long_context,
                    fast_multiplier,
                },
            ));
        }
        Ok(PriceTable {
            taken: text_of("taken"),
            source: text_of("source"),
            models,
            overrides: 0,
        })
    }

    /// Read a table from a JSON file (see [`from_json`](PriceTable::from_json)).
    pub fn from_file(path: &Path) -> Result<PriceTable, PricingError> {
        let text =
            std::fs::read_to_string(path).map_err(|e| bad(format!("{}: {e}", path.display())))?;
        PriceTable::from_json(&text).map_err(|e| bad(format!("{}: {e}", path.display())))
    }

    /// `self` with `over`'s entries taking precedence: a model any entry of
    /// `over` matches is priced by `over`.
    pub fn overriding(&self, over: &PriceTable) -> PriceTable {
        let mut models = over.models.clone();
        let n = models.len();
        models.extend(self.models.iter().cloned());
        PriceTable {
            taken: if over.taken.is_empty() {
                self.taken.clone()
            } else {
                over.taken.clone()
            },
            source: format!(
                "{} (overridden for {} entries by: {})",
                self.source, n, over.source
            ),
            models,
            overrides: n,
        }
    }

    /// When the prices were taken (`YYYY-MM-DD`; empty when not said).
    pub(crate) fn taken(&self) -> &str {
        &self.taken
    }

    /// Where the prices come from.
    pub(crate) fn source(&self) -> &str {
        &self.source
    }

    /// The entries, in the order they are searched.
    pub fn models(&self) -> impl Iterator<Item = (&str, &ModelPrices)> {
        self.models.iter().map(|(n, p)| (n.as_str(), p))
    }

    /// The prices for `model`; `None` when no entry matches.
    pub fn prices(&self, model: &str) -> Option<&ModelPrices> {
        let name = normalize(model);
        let name = name.as_bytes();
        let fits = |m: &str| {
            let m = m.as_bytes();
            name.len() >= m.len()
                && name[..m.len()].eq_ignore_ascii_case(m)
                && matches!(name.get(m.len()), None | Some(b'-'))
        };
        // An override's match wins over any built-in one; within each part,
        // the longest match.
        let longest = |part: &'_ [(String, ModelPrices)]| {
            let mut best: Option<(usize, usize)> = None;
            for (i, (m, _)) in part.iter().enumerate() {
                if fits(m) && best.is_none_or(|(len, _)| m.len() > len) {
                    best = Some((m.len(), i));
                }
            }
            best.map(|(_, i)| i)
        };
        let (over, base) = self.models.split_at(self.overrides.min(self.models.len()));
        match longest(over) {
            Some(i) => Some(&over[i].1),
            None => longest(base).map(|i| &base[i].1),
        }
    }

    /// The cost of `usage` on `model`, in US dollars; `None` when the model
    /// has no price here.
    pub fn cost(&self, model: &str, usage: &RequestTokens) -> Option<f64> {
        self.prices(model).map(|p| p.cost(usage))
    }
}

fn price(v: &serde_json::Value) -> Option<f64> {
    v.as_f64().filter(|x| x.is_finite() && *x >= 0.0)
}

fn tier(m: &serde_json::Value) -> Result<TierPrices, String> {
    let get = |k: &str| match m.get(k) {
        None | Some(serde_json::Value::Null) => Ok(None),
        Some(x) => price(x).map(Some).ok_or_else(|| {
            format!("`{k}` is not a price (a number of dollars per million tokens)")
        }),
    };
    let input = get("input")?.ok_or("no `input` price")?;
    let output = get("output")?.ok_or("no `output` price")?;
    Ok(TierPrices {
        input,
        output,
        cache_write_5m: get("cache_write_5m")?.unwrap_or(input * 1.25),
        cache_write_1h: get("cache_write_1h")?.unwrap_or(input * 2.0),
        cache_read: get("cache_read")?.unwrap_or(input * 0.1),
    })
}

/// A model name without what providers put around it.
fn normalize(model: &str) -> &str {
    let mut m = model.trim();
    if let Some(i) = m.rfind('/') {
        m = &m[i + 1..];
    }
    // Bedrock: `us.anthropic.claude-...-v1:0`.
    if let Some(i) = m.find("anthropic.") {
        m = &m[i + "anthropic.".len()..];
    }
    for cut in ["[", "@", ":"] {
        if let Some(i) = m.find(cut) {
            m = &m[..i];
        }
    }
    if let Some(rest) = m.strip_suffix("-v1").or_else(|| m.strip_suffix("-v2")) {
        m = rest;
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_table_reads_and_says_when_and_where() {
        let t = PriceTable::builtin();
        assert!(t.models().count() >= 20);
        assert_eq!(t.taken().len(), 10);
        assert!(t.source().contains("Anthropic"));
    }

    #[test]
    fn names_match_their_family_and_providers_wrappers_are_removed() {
        let t = PriceTable::builtin();
        let input = |m: &str| t.prices(m).map(|p| p.base.input);
        assert_eq!(input("claude-sonnet-4-5-20250929"), Some(3.0));
        assert_eq!(input("claude-sonnet-4-20250514"), Some(3.0));
        assert_eq!(input("claude-opus-4-20250514"), Some(15.0));
        assert_eq!(input("claude-opus-4-1-20250805"), Some(15.0));
        assert_eq!(input("claude-opus-4-5-20251101"), Some(5.0));
        assert_eq!(input("claude-opus-4-6"), Some(5.0));
        assert_eq!(input("claude-opus-5[1m]"), Some(5.0));
        assert_eq!(input("anthropic/claude-haiku-4-5"), Some(1.0));
        assert_eq!(
            input("us.anthropic.claude-sonnet-4-5-20250929-v1:0"),
            Some(3.0)
        );
        assert_eq!(input("claude-sonnet-4-5@20250929"), Some(3.0));
        assert_eq!(input("claude-3-5-haiku-20241022"), Some(0.8));
        assert_eq!(input("claude-opus-40"), None, "a prefix must end at a dash");
        assert_eq!(input("<synthetic>"), None);
        assert_eq!(input("glm-4.7"), None);
    }

    #[test]
    fn cache_lifetimes_fast_mode_and_long_context_are_priced_apart() {
        let t = PriceTable::builtin();
        let opus = t.prices("claude-opus-4-8").unwrap();
        let u = RequestTokens {
            input: 1_000_000,
            cache_write_5m: 1_000_000,
            cache_write_1h: 1_000_000,
            cache_read: 1_000_000,
            ..RequestTokens::default()
        };
        assert!((opus.cost(&u) - (5.0 + 6.25 + 10.0 + 0.5)).abs() < 1e-9);
        let fast = RequestTokens { fast: true, ..u };
        assert!((opus.cost(&fast) - 2.0 * (5.0 + 6.25 + 10.0 + 0.5)).abs() < 1e-9);
        let sonnet = t.prices("claude-sonnet-4-5").unwrap();
        let below = RequestTokens {
            input: 200_000,
            ..RequestTokens::default()
        };
        assert!((sonnet.cost(&below) - 0.6).abs() < 1e-12);
        let above = RequestTokens {
            input: 200_001,
            output: 10,
            ..RequestTokens::default()
        };
        assert!((sonnet.cost(&above) - (200_001.0 * 6.0 + 10.0 * 22.5) / 1e6).abs() < 1e-12);
    }

    #[test]
    fn a_file_overrides_the_shipped_prices_and_bad_files_say_why() {
        let over = PriceTable::from_json(
            r#"{"taken":"2027-01-01","source":"my contract","models":[{"match":"claude-sonnet-4-5","input":1,"output":2}]}"#,
        )
        .unwrap();
        let t = PriceTable::builtin().overriding(&over);
        let p = t.prices("claude-sonnet-4-5-20250929").unwrap();
        assert_eq!(
            (
                p.base.input,
                p.base.cache_write_5m,
                p.base.cache_write_1h,
                p.base.cache_read
            ),
            (1.0, 1.25, 2.0, 0.1)
        );
        assert_eq!(p.long_context, None);
        assert_eq!(t.prices("claude-haiku-4-5").unwrap().base.input, 1.0);
        assert_eq!(t.taken(), "2027-01-01");
        for bad in [
            "nope",
            r#"{"models":{}}"#,
            r#"{"models":[{"input":1,"output":2}]}"#,
            r#"{"models":[{"match":"x","input":-1,"output":2}]}"#,
            r#"{"models":[{"match":"x","input":1}]}"#,
            r#"{"models":[{"match":"x","input":1,"output":1,"long_context":{"input":1,"output":1}}]}"#,
        ] {
            assert!(PriceTable::from_json(bad).is_err(), "{bad}");
        }
    }
}
