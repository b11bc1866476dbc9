//! One test, included by the test files whose tests read
//! `../shared/realworld` only in part (and pass without it), so that a
//! missing folder shows in cargo's summary as an ignored test with the
//! reason (`build.rs` sets the cfg).

#[test]
#[cfg_attr(
    cctape_no_realworld,
    ignore = "../shared/realworld is missing (see the README; after adding it, touch build.rs)"
)]
fn realworld_captures_are_present() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/realworld");
    assert!(dir.is_dir(), "{} is missing", dir.display());
}
