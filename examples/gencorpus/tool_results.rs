//! Tool results: `user` events with a per-tool `tool_use_result`.

use std::io;

use crate::generator::{Gen, SubCtx};
use crate::models::{Kind, ToolCall};
use crate::pools::{LANGS, WORDS, trim_nl};
use crate::primitives::{W, escape_into, push_u64};

impl<'p> Gen<'p> {
    // -- tool results ------------------------------------------------------------------

    pub(crate) fn user_begin(&mut self, tool_use_id: &str, is_error: bool) {
        let w = &mut self.w;
        w.open();
        w.ks("type", "user");
        w.k("message");
        w.open();
        w.ks("role", "user");
        w.k("content");
        w.arr();
        w.open();
        if is_error {
            w.ks("type", "tool_result");
        } else {
            w.ks("tool_use_id", tool_use_id);
            w.ks("type", "tool_result");
        }
        w.k("content");
    }

    /// Closes the tool_result block and message, writes the common fields.
    pub(crate) fn user_mid(&mut self, tool_use_id: &str, is_error: bool, sub: Option<&SubCtx>) {
        let ts = self.ts();
        let u = self.uuid();
        let w = &mut self.w;
        if is_error {
            w.kb("is_error", true);
            w.ks("tool_use_id", tool_use_id);
        }
        w.close();
        w.arr_end();
        w.close();
        match sub {
            Some(s) => w.ks("parent_tool_use_id", &s.parent),
            None => w.knull("parent_tool_use_id"),
        }
        w.ks("session_id", &self.sid);
        w.ks("uuid", &u);
        w.ks("timestamp", &ts);
    }

    pub(crate) fn user_end(&mut self, sub: Option<&SubCtx>) -> io::Result<()> {
        if let Some(s) = sub {
            self.w.ks("subagent_type", s.sub_type);
            self.w.ks("task_description", &s.desc);
        }
        self.w.close();
        self.end_line()
    }

    pub(crate) fn tool_result(&mut self, tc: &ToolCall, sub: Option<&SubCtx>) -> io::Result<()> {
        let pools = self.pools;
        let mut tmp = std::mem::take(&mut self.tmp);
        tmp.clear();
        let with_tur = sub.is_none();
        match &tc.kind {
            Kind::Bash { out, err, exit } => {
                let stdout = trim_nl(self.span(*out));
                let stderr = err.map(|e| trim_nl(self.span(e))).unwrap_or(b"");
                if *exit != 0 {
                    tmp.extend_from_slice(b"Exit code ");
                    push_u64(&mut tmp, *exit);
                    tmp.extend_from_slice(b"\\n");
                    let body_at = tmp.len();
                    tmp.extend_from_slice(stdout);
                    if !stderr.is_empty() {
                        tmp.extend_from_slice(b"\\n");
                        tmp.extend_from_slice(stderr);
                    }
                    self.user_begin(&tc.id, true);
                    self.w.se(&tmp);
                    self.user_mid(&tc.id, true, sub);
                    if with_tur {
                        self.w.k("tool_use_result");
                        self.w.b.extend_from_slice(b"\"Error: Exit code ");
                        push_u64(&mut self.w.b, *exit);
                        self.w.b.extend_from_slice(b"\\n");
                        self.w.b.extend_from_slice(&tmp[body_at..]);
                        self.w.b.push(b'"');
                    }
                } else {
                    tmp.extend_from_slice(stdout);
                    if !stderr.is_empty() {
                        tmp.extend_from_slice(b"\\n");
                        tmp.extend_from_slice(stderr);
                    }
                    self.user_begin(&tc.id, false);
                    self.w.se(&tmp);
                    self.user_mid(&tc.id, false, sub);
                    if with_tur {
                        let w = &mut self.w;
                        w.k("tool_use_result");
                        w.open();
                        w.kse("stdout", stdout);
                        w.kse("stderr", stderr);
                        w.kb("interrupted", false);
                        w.kb("isImage", false);
                        w.kb("noOutputExpected", false);
                        w.close();
                    }
                }
            }
            Kind::Read {
                path,
                src,
                start,
                total,
                missing,
            } => {
                if *missing {
                    let msg = format!(
                        "File does not exist. Note: your current working directory is {}.",
                        self.r.cwd
                    );
                    self.user_begin(&tc.id, true);
                    self.w.s(&format!("<tool_use_error>{msg}</tool_use_error>"));
                    self.user_mid(&tc.id, true, sub);
                    if with_tur {
                        self.w.ks("tool_use_result", &format!("Error: {msg}"));
                    }
                } else {
                    let pool = &pools.all[src.pool];
                    for (k, i) in (src.a..src.b).enumerate() {
                        if k > 0 {
                            tmp.extend_from_slice(b"\\n");
                        }
                        push_u64(&mut tmp, (start + k) as u64);
                        tmp.extend_from_slice(b"\\t");
                        tmp.extend_from_slice(pool.line(i));
                    }
                    self.user_begin(&tc.id, false);
                    self.w.se(&tmp);
                    self.user_mid(&tc.id, false, sub);
                    if with_tur {
                        let w = &mut self.w;
                        w.k("tool_use_result");
                        w.open();
                        w.ks("type", "text");
                        w.k("file");
                        w.open();
                        w.ks("filePath", path);
                        w.kse("content", pool.span(src.a, src.b));
                        w.kn("numLines", (src.b - src.a) as u64);
                        w.kn("startLine", *start as u64);
                        w.kn("totalLines", *total as u64);
                        w.close();
                        w.close();
                    }
                }
            }
            Kind::Write { path, src, hunks } => {
                self.user_begin(&tc.id, false);
                self.w.s(&format!("File created successfully at: {path}"));
                self.user_mid(&tc.id, false, sub);
                if with_tur {
                    let pool = &pools.all[src.pool];
                    let w = &mut self.w;
                    w.k("tool_use_result");
                    w.open();
                    w.ks("type", "create");
                    w.ks("filePath", path);
                    w.kse("content", pool.span(src.a, src.b));
                    w.k("structuredPatch");
                    w.arr();
                    if *hunks {
                        let n = (src.b - src.a) as u64;
                        w.open();
                        w.kn("oldStart", 0);
                        w.kn("oldLines", 0);
                        w.kn("newStart", 1);
                        w.kn("newLines", n);
                        w.k("lines");
                        w.arr();
                        for i in src.a..src.b {
                            w.sep();
                            w.b.extend_from_slice(b"\"+");
                            w.b.extend_from_slice(pool.line(i));
                            w.b.push(b'"');
                        }
                        w.arr_end();
                        w.close();
                    }
                    w.arr_end();
                    w.knull("originalFile");
                    w.kb("userModified", false);
                    w.close();
                }
            }
            Kind::Edit {
                path,
                orig,
                at,
                old_n,
                new,
                fail,
            } => {
                let pool = &pools.all[orig.pool];
                let old = trim_nl(pool.span(*at, at + old_n));
                let new_s = trim_nl(pool.span(new.a, new.b));
                if *fail {
                    tmp.extend_from_slice(b"String to replace not found in file.\\nString: ");
                    tmp.extend_from_slice(old);
                    self.user_begin(&tc.id, true);
                    self.w.sep();
                    self.w.b.extend_from_slice(b"\"<tool_use_error>");
                    self.w.b.extend_from_slice(&tmp);
                    self.w.b.extend_from_slice(b"</tool_use_error>\"");
                    self.user_mid(&tc.id, true, sub);
                    if with_tur {
                        self.w.k("tool_use_result");
                        self.w.b.extend_from_slice(b"\"Error: ");
                        self.w.b.extend_from_slice(&tmp);
                        self.w.b.push(b'"');
                    }
                } else {
                    self.user_begin(&tc.id, false);
                    self.w
                        .s(&format!("The file {path} has been updated successfully."));
                    self.user_mid(&tc.id, false, sub);
                    if with_tur {
                        let ctx_a = at.saturating_sub(3).max(orig.a);
                        let ctx_b = (at + old_n + 3).min(orig.b);
                        let new_n = new.b - new.a;
                        let w = &mut self.w;
                        w.k("tool_use_result");
                        w.open();
                        w.ks("filePath", path);
                        w.kse("oldString", old);
                        w.kse("newString", new_s);
                        w.kse("originalFile", pool.span(orig.a, orig.b));
                        w.k("structuredPatch");
                        w.arr();
                        w.open();
                        let old_start = (ctx_a - orig.a + 1) as u64;
                        let old_lines = (ctx_b - ctx_a) as u64;
                        w.kn("oldStart", old_start);
                        w.kn("oldLines", old_lines);
                        w.kn("newStart", old_start);
                        w.kn("newLines", old_lines - *old_n as u64 + new_n as u64);
                        w.k("lines");
                        w.arr();
                        let line = |w: &mut W, prefix: u8, l: &[u8]| {
                            w.sep();
                            w.b.push(b'"');
                            w.b.push(prefix);
                            w.b.extend_from_slice(l);
                            w.b.push(b'"');
                        };
                        for i in ctx_a..*at {
                            line(w, b' ', pool.line(i));
                        }
                        for i in *at..at + old_n {
                            line(w, b'-', pool.line(i));
                        }
                        for i in new.a..new.b {
                            line(w, b'+', pool.line(i));
                        }
                        for i in at + old_n..ctx_b {
                            line(w, b' ', pool.line(i));
                        }
                        w.arr_end();
                        w.close();
                        w.arr_end();
                        w.kb("userModified", false);
                        w.kb("replaceAll", false);
                        w.close();
                    }
                }
            }
            Kind::Grep { src, files, path } => {
                let pool = &pools.all[src.pool];
                let ext = LANGS[src.pool.min(3)].ext;
                let mut names: Vec<String> = Vec::new();
                if *files {
                    let n = self.rng.range(1, 12);
                    for _ in 0..n {
                        let a = self.rng.ps(WORDS);
                        let b = self.rng.ps(WORDS);
                        names.push(format!("{path}/{a}_{b}.{ext}"));
                    }
                    tmp.extend_from_slice(b"Found ");
                    push_u64(&mut tmp, n);
                    tmp.extend_from_slice(b" files");
                    for nm in &names {
                        tmp.extend_from_slice(b"\\n");
                        escape_into(&mut tmp, nm.as_bytes());
                    }
                } else {
                    let file = format!("{}_{}.{ext}", self.rng.ps(WORDS), self.rng.ps(WORDS));
                    let mut ln = self.rng.range(1, 400);
                    for (k, i) in (src.a..src.b).enumerate() {
                        if k > 0 {
                            tmp.extend_from_slice(b"\\n");
                        }
                        tmp.extend_from_slice(file.as_bytes());
                        tmp.push(b':');
                        push_u64(&mut tmp, ln);
                        tmp.push(b':');
                        tmp.extend_from_slice(pool.line(i));
                        ln += 1 + self.rng.below(3) * self.rng.below(40);
                    }
                }
                self.user_begin(&tc.id, false);
                self.w.se(&tmp);
                self.user_mid(&tc.id, false, sub);
                if with_tur {
                    let w = &mut self.w;
                    w.k("tool_use_result");
                    w.open();
                    if *files {
                        w.ks("mode", "files_with_matches");
                        w.k("filenames");
                        w.arr();
                        for nm in &names {
                            w.s(nm);
                        }
                        w.arr_end();
                        w.kn("numFiles", names.len() as u64);
                    } else {
                        w.ks("mode", "content");
                        w.kn("numFiles", 0);
                        w.kraw("filenames", b"[]");
                        w.kse("content", &tmp);
                        w.kn("numLines", (src.b - src.a) as u64);
                    }
                    w.close();
                }
            }
            Kind::Agent { .. } => {
                // Agent results are written by `sub_step`.
            }
        }
        self.tmp = tmp;
        self.user_end(sub)
    }
}
