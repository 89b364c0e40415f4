//! The built-in list of destructive calls: commands and file writes no rule ever allows,
//! however often the person allowed something like them. When a command cannot be read with
//! confidence it counts as destructive too.

use std::cell::Cell;

use super::command::{Segment, flattened, segments};
use super::path::{guarded, inside, is_absolute};
use super::tool::{self, ToolKind, command_texts, file_path};
use crate::approval::Approval;

/// How deep `bash -c '…'` and `eval` are followed before giving up.
const MAX_DEPTH: usize = 6;
/// Most readings of nested command text (`bash -c`, `eval`, text after a wrapper) for one
/// command; past it the command counts as destructive.
const MAX_READINGS: u32 = 512;
/// Most words read in one simple command.
const MAX_WORDS: usize = 512;

/// Why this call is destructive (a built-in pattern), or `None`.
pub fn destructive(approval: &Approval) -> Option<&'static str> {
    match tool::kind(&approval.tool_name) {
        ToolKind::Shell => match command_texts(&approval.input) {
            Some(texts) => texts.iter().find_map(|text| command_reason(text)),
            None => Some("runs a command Beckon cannot read"),
        },
        ToolKind::OtherShell => Some("runs a command in a shell Beckon does not read"),
        ToolKind::FileWrite => write_reason(approval),
        ToolKind::Outside => Some("works in folders outside the project"),
        ToolKind::FileRead | ToolKind::Mcp | ToolKind::Other => None,
    }
}

/// Why running the shell command `text` is destructive, or `None`.
pub(crate) fn command_reason(text: &str) -> Option<&'static str> {
    analyze(text, 0, &Cell::new(MAX_READINGS))
}

/// Why a file tool's write is destructive: outside the project, into a guarded place, or to a
/// file it does not name clearly.
fn write_reason(approval: &Approval) -> Option<&'static str> {
    let path = match file_path(&approval.input) {
        Ok(Some(path)) => path,
        Ok(None) => return Some("does not name the file it writes"),
        Err(()) => return Some("names the file it writes in a way Beckon cannot read"),
    };
    if let Some(reason) = guarded(path) {
        return Some(reason);
    }
    match approval.project.as_deref().filter(|p| !p.trim().is_empty()) {
        Some(project) => inside(project, path).is_none().then_some("writes outside the project"),
        None => (is_absolute(path) || inside("/project", path).is_none()).then_some("writes outside a known project"),
    }
}

fn analyze(text: &str, depth: usize, budget: &Cell<u32>) -> Option<&'static str> {
    if depth > MAX_DEPTH {
        return Some("nests commands too deeply to read");
    }
    if budget.get() == 0 {
        return Some("is too involved to read");
    }
    budget.set(budget.get() - 1);
    let flat = flattened(text);
    if let Some(reason) = text_reason(text).or_else(|| text_reason(&flat)) {
        return Some(reason);
    }
    let Some(parsed) = segments(text) else { return Some("leaves a quote open") };
    segments_reason(&parsed, depth, budget)
        .or_else(|| segments(&flat).and_then(|flat| segments_reason(&flat, depth, budget)))
}

/// Patterns seen in the text itself, whatever its quoting: fork bombs and SQL that drops data.
fn text_reason(text: &str) -> Option<&'static str> {
    let packed: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    if packed.contains("(){") || packed.contains("()\\{") {
        return Some("defines a shell function (the shape of a fork bomb)");
    }
    let words: String =
        text.to_ascii_lowercase().chars().map(|c| if c.is_ascii_alphanumeric() { c } else { ' ' }).collect();
    let words = format!(" {} ", words.split_whitespace().collect::<Vec<_>>().join(" "));
    let sql = [" drop table ", " drop database ", " drop schema ", " truncate table ", " flushall ", " flushdb "];
    if sql.iter().any(|pattern| words.contains(pattern)) {
        return Some("drops or empties a database (DROP TABLE, DROP DATABASE, TRUNCATE)");
    }
    None
}

fn segments_reason(parsed: &[Segment], depth: usize, budget: &Cell<u32>) -> Option<&'static str> {
    let names = |list: &[&str]| parsed.iter().flat_map(|s| &s.words).any(|w| list.contains(&program(w).as_str()));
    if names(&DOWNLOADERS) && names(&RUNNERS) {
        return Some("runs downloaded code (curl or wget with a shell)");
    }
    for segment in parsed {
        if segment.redirects.iter().chain(&segment.words).any(|w| is_disk_device(w)) {
            return Some("writes to a disk device");
        }
        let words = without_assignments(&segment.words);
        if segment.piped && words.iter().any(|w| RUNNERS.contains(&program(w).as_str())) {
            return Some("pipes text into a shell or interpreter");
        }
        if let Some(reason) = simple_reason(words, depth, budget) {
            return Some(reason);
        }
    }
    None
}

/// Programs that fetch from the network.
const DOWNLOADERS: [&str; 6] = ["curl", "wget", "fetch", "aria2c", "http", "https"];
/// Programs that run the text they are given.
const RUNNERS: [&str; 20] = [
    "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "csh", "tcsh", "python", "python3", "perl", "ruby",
    "node", "php", "eval", "source", "sudo", "doas",
];
/// Programs that run another command given after their own options.
pub(crate) const WRAPPERS: [&str; 30] = [
    "env",
    "command",
    "builtin",
    "exec",
    "nohup",
    "time",
    "nice",
    "ionice",
    "stdbuf",
    "timeout",
    "gtimeout",
    "watch",
    "xargs",
    "parallel",
    "flock",
    "setsid",
    "chrt",
    "taskset",
    "unbuffer",
    "caffeinate",
    "strace",
    "ltrace",
    "busybox",
    "toybox",
    "then",
    "do",
    "else",
    "{",
    "!",
    "if",
];
/// Keywords that start a loop or test whose body follows.
const KEYWORDS: [&str; 4] = ["while", "until", "elif", "coproc"];
/// Programs that run a command as another user.
const AS_ROOT: [&str; 6] = ["sudo", "doas", "su", "pkexec", "run0", "runas"];

/// The program a word names: its last path part, lower-case (`/usr/bin/RM` is `rm`).
fn program(word: &str) -> String {
    word.rsplit('/').next().unwrap_or(word).to_ascii_lowercase()
}

fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty()
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && !name.starts_with(|c: char| c.is_ascii_digit())
    })
}

fn without_assignments(words: &[String]) -> &[String] {
    let start = words.iter().position(|w| !is_assignment(w)).unwrap_or(words.len());
    &words[start..]
}

fn is_disk_device(word: &str) -> bool {
    let target = word.strip_prefix("of=").unwrap_or(word);
    target.strip_prefix("/dev/").is_some_and(|device| {
        ["sd", "hd", "nvme", "xvd", "vd", "disk", "rdisk", "mmcblk", "mapper", "md", "loop", "dm-", "sr", "nbd"]
            .iter()
            .any(|prefix| device.starts_with(prefix))
    })
}

/// One simple command, looking behind wrappers (`env`, `nohup`, `xargs`, `timeout 5`, …): every
/// word after a wrapper is tried as the start of the real command.
fn simple_reason(words: &[String], depth: usize, budget: &Cell<u32>) -> Option<&'static str> {
    let words = without_assignments(words);
    let first = program(words.first()?);
    if words.len() > MAX_WORDS {
        return Some("is too long to read");
    }
    if WRAPPERS.contains(&first.as_str()) || KEYWORDS.contains(&first.as_str()) || runs_others(&first, words) {
        for start in 1..words.len() {
            if let Some(reason) = core_reason(without_assignments(&words[start..]), depth, budget) {
                return Some(reason);
            }
        }
        return analyze(&words[1..].join(" "), depth + 1, budget);
    }
    core_reason(words, depth, budget)
}

/// Whether a command runs another command given in its words: package runners
/// (`npx`, `npm exec`, `uv run`), containers (`docker run`, `kubectl exec`) and `ssh`.
fn runs_others(first: &str, words: &[String]) -> bool {
    let second = words.get(1).map(|w| w.to_ascii_lowercase()).unwrap_or_default();
    match first {
        "npx" | "bunx" | "pnpx" | "uvx" | "ssh" => true,
        "npm" | "pnpm" | "yarn" | "bun" => matches!(second.as_str(), "exec" | "x" | "dlx"),
        "uv" | "poetry" | "pipenv" | "pdm" | "hatch" => matches!(second.as_str(), "run" | "tool"),
        "docker" | "podman" | "nerdctl" | "kubectl" | "oc" => matches!(second.as_str(), "run" | "exec"),
        _ => false,
    }
}

/// One simple command whose first word is the program it runs.
fn core_reason(words: &[String], depth: usize, budget: &Cell<u32>) -> Option<&'static str> {
    let name = program(words.first()?);
    let args = &words[1..];
    let any = |test: &dyn Fn(&str) -> bool| args.iter().any(|a| test(a));
    let has = |word: &str| args.iter().any(|a| a == word);
    match name.as_str() {
        n if AS_ROOT.contains(&n) => Some("runs as another user (sudo)"),
        n if tool::is_shell_program(n) => shell_reason(args, depth, budget),
        "eval" => analyze(&args.join(" "), depth + 1, budget),
        "rm" => rm_reason(args),
        "git" => git_reason(args),
        "find" => find_reason(args, depth, budget),
        "dd" => any(&|a| a.starts_with("of=")).then_some("writes raw blocks (dd of=)"),
        n if n.starts_with("mkfs") => Some("formats a disk (mkfs)"),
        "mke2fs" | "mkswap" | "fdisk" | "sfdisk" | "gdisk" | "parted" | "wipefs" | "shred" => {
            Some("formats or wipes a disk")
        }
        "chmod" => (recursive(args) && any(&|a| WORLD_WRITABLE.contains(&a)))
            .then_some("makes files world-writable recursively (chmod -R 777)"),
        "chown" | "chgrp" => recursive(args).then_some("changes owners recursively (chown -R)"),
        "shutdown" | "reboot" | "halt" | "poweroff" | "kexec" => Some("shuts down or restarts the machine"),
        "systemctl" => any(&|a| matches!(a, "reboot" | "poweroff" | "halt" | "kexec" | "rescue" | "emergency"))
            .then_some("shuts down or restarts the machine"),
        "init" | "telinit" => any(&|a| matches!(a, "0" | "6")).then_some("shuts down or restarts the machine"),
        "kill" => args.iter().skip(1).any(|a| a == "-1").then_some("kills every process (kill -9 -1)"),
        "killall5" => Some("kills every process"),
        "truncate" => Some("truncates files"),
        "docker" | "podman" | "nerdctl" => has("prune").then_some("prunes containers, images or volumes"),
        "kubectl" | "oc" => has("delete").then_some("deletes cluster resources (kubectl delete)"),
        "helm" => any(&|a| matches!(a, "uninstall" | "delete")).then_some("uninstalls a release (helm uninstall)"),
        "terraform" | "tofu" | "terragrunt" | "pulumi" => any(&|a| matches!(a, "destroy" | "-destroy" | "--destroy"))
            .then_some("destroys infrastructure (terraform destroy)"),
        "dropdb" | "dropuser" => Some("drops a database"),
        "crontab" => has("-r").then_some("removes the crontab"),
        "gh" => has("delete").then_some("deletes on GitHub (gh … delete)"),
        "mv" => args.last().is_some_and(|a| a == "/dev/null").then_some("moves files into /dev/null"),
        _ => None,
    }
}

const WORLD_WRITABLE: [&str; 8] = ["777", "0777", "a+rwx", "ugo+rwx", "o+w", "a+w", "o+rwx", "+rwx"];

/// Whether a short option cluster (`-rf`, not `--force`) holds one of `letters`.
fn short_has(arg: &str, letters: &[char]) -> bool {
    arg.len() > 1 && arg.starts_with('-') && !arg.starts_with("--") && arg[1..].contains(letters)
}

/// Whether a long option (`--forc`, `--force=x`) is, or abbreviates, one of `names`.
fn long_matches(arg: &str, names: &[&str]) -> bool {
    arg.strip_prefix("--")
        .map(|rest| rest.split('=').next().unwrap_or(rest))
        .is_some_and(|name| !name.is_empty() && names.iter().any(|full| full.starts_with(name)))
}

fn recursive(args: &[String]) -> bool {
    args.iter().any(|a| short_has(a, &['R']) || long_matches(a, &["recursive"]))
}

fn shell_reason(args: &[String], depth: usize, budget: &Cell<u32>) -> Option<&'static str> {
    let flag = args.iter().position(|a| short_has(a, &['c']) || a == "-c")?;
    let rest = &args[flag + 1..];
    let script = rest.first()?;
    analyze(script, depth + 1, budget).or_else(|| analyze(&rest.join(" "), depth + 1, budget))
}

fn rm_reason(args: &[String]) -> Option<&'static str> {
    let mut options_done = false;
    for arg in args {
        let arg = arg.as_str();
        if !options_done && arg == "--" {
            options_done = true;
        } else if !options_done && arg.starts_with("--") {
            if long_matches(arg, &["recursive", "force", "no-preserve-root"]) {
                return Some("removes files recursively or by force (rm -r/-f)");
            }
        } else if !options_done && short_has(arg, &['r', 'R', 'f']) {
            return Some("removes files recursively or by force (rm -r/-f)");
        } else if matches!(arg, "/" | "/*" | "~" | "~/" | "~/*" | "*" | "." | ".." | "./" | "../" | "./*" | "../*") {
            return Some("removes everything in a folder");
        }
    }
    None
}

fn git_reason(args: &[String]) -> Option<&'static str> {
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        let arg = arg.as_str();
        if (arg.starts_with("-c") && !arg.starts_with("--")) || long_matches(arg, &["config-env", "exec-path"]) {
            return Some("sets git configuration on the command line (it can run commands)");
        }
        if matches!(arg, "-C" | "--git-dir" | "--work-tree" | "--namespace" | "--super-prefix") {
            i += 2;
        } else if arg.starts_with('-') {
            i += 1;
        } else {
            break;
        }
    }
    let sub = args.get(i)?;
    let rest = &args[i + 1..];
    let any = |test: &dyn Fn(&str) -> bool| rest.iter().any(|a| test(a));
    let everything = |a: &str| matches!(a, "." | ":/" | "*" | "./" | ":/*");
    match sub.as_str() {
        "push" => any(&|a| {
            long_matches(a, &["force", "force-with-lease", "force-if-includes", "mirror", "delete", "prune"])
                || short_has(a, &['f', 'd'])
                || a.starts_with('+')
                || (a.starts_with(':') && a.len() > 1)
                || a.contains(":+")
        })
        .then_some("force-pushes or deletes remote branches (git push --force)"),
        "reset" => any(&|a| long_matches(a, &["hard"])).then_some("discards local changes (git reset --hard)"),
        "clean" => any(&|a| long_matches(a, &["force"]) || short_has(a, &['f']))
            .then_some("deletes untracked files (git clean -f)"),
        "checkout" => any(&|a| everything(a) || long_matches(a, &["force"]) || short_has(a, &['f']))
            .then_some("discards local changes (git checkout -- .)"),
        "restore" => any(&everything).then_some("discards local changes (git restore .)"),
        "branch" => any(&|a| short_has(a, &['D'])).then_some("deletes a branch that may be unmerged (git branch -D)"),
        "stash" => {
            rest.first().is_some_and(|a| matches!(a.as_str(), "clear" | "drop")).then_some("drops stashed changes")
        }
        "filter-branch" | "filter-repo" => Some("rewrites history"),
        "reflog" => any(&|a| matches!(a, "expire" | "delete")).then_some("expires the reflog"),
        "config" => any(&|a| {
            let a = a.to_ascii_lowercase();
            [
                "alias.",
                "core.",
                "command",
                "hookspath",
                "pager",
                "editor",
                "credential",
                "url.",
                "filter.",
                "diff.",
                "merge.",
            ]
            .iter()
            .any(|key| a.contains(key))
        })
        .then_some("sets git configuration that can run commands"),
        _ => None,
    }
}

fn find_reason(args: &[String], depth: usize, budget: &Cell<u32>) -> Option<&'static str> {
    if args.iter().any(|a| a == "-delete") {
        return Some("deletes what it finds (find -delete)");
    }
    if args.iter().any(|a| matches!(a.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir")) {
        return Some("runs a command on every file it finds (find -exec)");
    }
    if args.iter().any(|a| matches!(a.as_str(), "-fprint" | "-fprint0" | "-fprintf" | "-fls")) {
        return Some("writes files (find -fprint)");
    }
    let mut rest = args;
    while let Some(start) = rest.iter().position(|a| matches!(a.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir")) {
        let after = &rest[start + 1..];
        let end = after.iter().position(|a| a == ";" || a == "+").unwrap_or(after.len());
        if let Some(reason) = simple_reason(&after[..end], depth + 1, budget) {
            return Some(reason);
        }
        rest = &after[end..];
    }
    None
}
