//! The drift census: which fields real streams carry that cctape's views do
//! not know, which known extras (fields the reference lacks) they use, and
//! which fields hold an unexpected JSON type.
//!
//! ```text
//! cargo run --example drift -- FILES...
//! ```

use cctape::SliceEvents;
use cctape::source::FileBytes;
use cctape::views::Census;
use std::process::ExitCode;

fn main() -> ExitCode {
    let files: Vec<String> = std::env::args().skip(1).collect();
    if files.is_empty() {
        eprintln!("usage: drift FILES...");
        return ExitCode::from(2);
    }
    let mut census = Census::default();
    let mut errors = 0u64;
    for f in &files {
        let src = match FileBytes::open(std::path::Path::new(f)) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("drift: {f}: {e}");
                return ExitCode::FAILURE;
            }
        };
        let mut events = SliceEvents::new(&src);
        while let Some(item) = events.next_event() {
            match item {
                Ok(ev) => census.add(&ev),
                Err(_) => errors += 1,
            }
        }
    }
    print!("{census}");
    println!("lines that are not events: {errors}");
    ExitCode::SUCCESS
}
