//! `cctape completions SHELL` and `cctape man`: shell completions and man
//! pages generated from the clap definitions, so that they can never
//! disagree with `--help`.
//!
//! clap_complete and clap_mangen (kept by clap's authors) do the generating;
//! nothing here is written by hand but the choice of what to print where.

use super::exec::write_out;
use clap::CommandFactory;
use std::path::{Path, PathBuf};

/// Arguments of `cctape completions`.
#[derive(clap::Args, Debug)]
pub struct CompletionsArgs {
    /// The shell to write completions for.
    #[arg(value_enum, value_name = "SHELL")]
    shell: clap_complete::Shell,
}

/// Arguments of `cctape man`.
#[derive(clap::Args, Debug)]
pub struct ManArgs {
    /// Print the page of this command (`cctape-stats(1)`, ...) instead of
    /// cctape(1).
    #[arg(value_name = "COMMAND", conflicts_with = "dir")]
    command: Option<String>,
    /// Write every page (cctape.1 and cctape-COMMAND.1 for each command)
    /// into this directory instead of printing cctape(1).
    #[arg(long, value_name = "DIR")]
    dir: Option<PathBuf>,
}

/// The command line as the man pages describe it: built (so that
/// subcommands carry their full names, `cctape-stats`), without the `help`
/// subcommand, which has no page of its own.
fn man_command() -> clap::Command {
    let mut cmd = super::Cli::command().disable_help_subcommand(true);
    cmd.build();
    cmd
}

/// Print the completion script for one shell to stdout.
pub fn completions(args: &CompletionsArgs) -> i32 {
    let mut cmd = super::Cli::command();
    let mut out = Vec::new();
    clap_complete::generate(args.shell, &mut cmd, "cctape", &mut out);
    write_out(&mut out);
    0
}

/// Print one man page, or write them all into a directory.
pub fn man(args: &ManArgs) -> i32 {
    let cmd = man_command();
    if let Some(dir) = &args.dir {
        return match write_pages(cmd, dir) {
            Ok(()) => 0,
            Err(e) => {
                eprintln!("cctape: {}: {e}", super::inputs::shown_path(dir));
                2
            }
        };
    }
    let page = match &args.command {
        None => cmd,
        Some(name) => match cmd.find_subcommand(name) {
            Some(sub) => sub.clone(),
            None => {
                let names: Vec<&str> = cmd.get_subcommands().map(|s| s.get_name()).collect();
                eprintln!(
                    "cctape: no command `{}`; one of: {}",
                    super::inputs::escape(name),
                    names.join(", ")
                );
                return 2;
            }
        },
    };
    let mut out = Vec::new();
    // Rendering into memory cannot fail; writing is checked by write_out.
    if let Err(e) = clap_mangen::Man::new(page).render(&mut out) {
        eprintln!("cctape: rendering the man page: {e}");
        return 2;
    }
    write_out(&mut out);
    0
}

/// cctape.1 and one page per command, into `dir` (created if missing).
fn write_pages(cmd: clap::Command, dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    clap_mangen::generate_to(cmd, dir)
}
