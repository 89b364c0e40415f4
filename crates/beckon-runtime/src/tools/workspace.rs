//! A session's workspace folder: the only part of the disk the file tools may touch.
//!
//! Every path an agent gives is relative to the workspace folder and is checked twice: first
//! as text (not empty, not absolute, no `..`, no backslashes or drive letters, no NUL, other
//! control or bidirectional control characters, bounded length and depth), then against the
//! disk with symbolic links resolved, so that whatever the path names really lies inside the
//! folder.
//!
//! # What is and is not defended (time of check, time of use)
//!
//! A path is checked and then used a moment later. A process that changes the workspace in
//! that moment could swap a checked folder for a symbolic link. Closing that gap completely
//! needs `openat`-style calls, which std does not offer without unsafe code, so:
//!
//! - Writes never go through a link at the final component. The bytes go into a new
//!   temporary file created with `O_CREAT | O_EXCL` (`create_new`, which never follows a
//!   link) in the target's folder, which is then renamed over the target. `rename` replaces a
//!   symbolic link planted after the check instead of writing through it, replaces a hard link
//!   instead of changing the file it shares, and no reader ever sees a half-written file.
//! - After a file is opened for reading, or the temporary file created for writing, its real
//!   path is read back from `/proc/self/fd` and must lie inside the workspace: a folder swapped
//!   for a link to the outside between check and open is caught before a byte is read or
//!   written. Without procfs (macOS) this second check is skipped.
//! - Not defended against a process racing us: folders made by [`Workspace::resolve_for_write`]
//!   (a swapped parent could get an empty folder made outside), listing a folder, the final
//!   `rename` (it finds the folder by path again), and a file swapped for a FIFO (opening it
//!   would block). Hard links and bind mounts inside the workspace look like ordinary files
//!   and folders and are not detected.
//!
//! An agent on its own cannot race these checks: its tool calls run one at a time and every
//! one goes through here. The gaps matter only when another process writes into the workspace
//! at the same moment.

use std::fs::{self, File, Metadata, OpenOptions};
use std::io::{self, ErrorKind, Read, Write};
use std::os::fd::AsRawFd;
use std::path::{Path, PathBuf};

use super::budget;

/// Longest path an agent may give, in bytes.
pub(crate) const PATH_MAX_BYTES: usize = 1024;
/// Most components (folder and file names) a path may have.
pub(crate) const PATH_MAX_DEPTH: usize = 32;

/// How to name a file in messages, for the model to copy.
const EXAMPLE: &str = "such as notes/todo.md";

/// Why a workspace path was refused or a file operation failed. The text is what the model
/// reads, so each says what is wrong and what to do instead.
#[derive(Debug, thiserror::Error)]
pub enum WorkspaceError {
    /// The workspace folder itself could not be created or opened.
    #[error("the workspace folder {root} could not be opened: {source}")]
    Open {
        /// The folder asked for.
        root: PathBuf,
        /// What went wrong.
        source: io::Error,
    },
    /// The path is empty.
    #[error("the path is empty; give a path relative to the workspace folder, {EXAMPLE}")]
    EmptyPath,
    /// The path is longer than [`PATH_MAX_BYTES`].
    #[error("the path is {len} bytes long; the limit is {PATH_MAX_BYTES} bytes, so use a shorter path")]
    PathTooLong {
        /// Its length in bytes.
        len: usize,
    },
    /// The path contains a NUL byte.
    #[error("the path contains a NUL byte (\\0), which no file name may contain; remove it")]
    NulByte,
    /// The path contains a control character other than NUL.
    #[error("the path {path:?} contains a control character; file names here must be printable text")]
    ControlCharacter {
        /// The path as given.
        path: String,
    },
    /// The path is absolute.
    #[error(
        "{path:?} is an absolute path; only files inside the workspace folder can be used, so give a \
         path relative to it, {EXAMPLE}"
    )]
    Absolute {
        /// The path as given.
        path: String,
    },
    /// The path uses a backslash or a Windows drive prefix.
    #[error(
        "{path:?} looks like a Windows path (a backslash or a drive letter); separate folders with '/' \
         and give a path relative to the workspace folder, {EXAMPLE}"
    )]
    WindowsStyle {
        /// The path as given.
        path: String,
    },
    /// The path has a `..` component.
    #[error(
        "{path:?} contains '..'; paths may not climb out of the workspace folder, so name the file \
         from the workspace folder down, {EXAMPLE}"
    )]
    ParentComponent {
        /// The path as given.
        path: String,
    },
    /// The path has more than [`PATH_MAX_DEPTH`] components.
    #[error("{path:?} is {depth} folders deep; the limit is {PATH_MAX_DEPTH}, so use a shallower path")]
    TooDeep {
        /// The path as given.
        path: String,
        /// How many components it has.
        depth: usize,
    },
    /// Once symbolic links are resolved, the path lies outside the workspace folder.
    #[error(
        "{path:?} leads outside the workspace folder through a symbolic link; only files inside the \
         workspace folder can be used"
    )]
    OutsideWorkspace {
        /// The path as given.
        path: String,
    },
    /// The path names a symbolic link whose target does not exist.
    #[error("{path:?} is a symbolic link to something that does not exist")]
    BrokenLink {
        /// The path as given.
        path: String,
    },
    /// A write would go through a symbolic link.
    #[error("{path:?} is a symbolic link; writing through links is refused, so write to a different path")]
    WriteThroughLink {
        /// The path as given.
        path: String,
    },
    /// Nothing exists at the path.
    #[error("{path:?} does not exist in the workspace folder; list_files shows what is there")]
    NotFound {
        /// The path as given.
        path: String,
    },
    /// One of the path's folders is a file.
    #[error("{path:?} cannot be used: {folder:?} is a file, not a folder")]
    NotAFolder {
        /// The path as given.
        path: String,
        /// The part of it that is a file (the whole path when unknown).
        folder: String,
    },
    /// The path names a folder where a file was expected.
    #[error("{path:?} is a folder, not a file; list_files shows what is in it")]
    IsAFolder {
        /// The path as given.
        path: String,
    },
    /// The path names a FIFO, socket or device.
    #[error("{path:?} is not a regular file (it is a pipe, socket or device); only regular files can be used")]
    NotARegularFile {
        /// The path as given.
        path: String,
    },
    /// The file to be replaced is read-only.
    #[error("{path:?} is read-only; write to a different path")]
    ReadOnly {
        /// The path as given.
        path: String,
    },
    /// The file is larger than the tool reads.
    #[error("{path:?} is {size} bytes; the limit is {limit} bytes, so it cannot be read whole")]
    TooLarge {
        /// The path as given.
        path: String,
        /// Its size in bytes (at least this much when it grew while being read).
        size: u64,
        /// The most that may be read.
        limit: u64,
    },
    /// The write would take the workspace past the agent's `max_workspace`.
    #[error(
        "{path:?} was not written: the workspace holds {used} bytes of files and the agent may use \
         {limit} (max_workspace in its file), so {size} more bytes do not fit; write less, \
         or finish with what is there"
    )]
    Full {
        /// The path as given.
        path: String,
        /// Bytes of files the workspace holds now.
        used: u64,
        /// The bytes the write would have written.
        size: u64,
        /// The agent's limit.
        limit: u64,
    },
    /// The write would make one file more than a workspace may hold.
    #[error(
        "{path:?} was not created: the workspace already holds {} files and folders, the most it may; \
         write into an existing file instead",
        budget::MAX_ENTRIES
    )]
    TooManyEntries {
        /// The path as given.
        path: String,
    },
    /// The operating system refused.
    #[error("could not {action} {path:?}: {source}")]
    Io {
        /// What was being done: "read", "write", "list".
        action: &'static str,
        /// The path as given.
        path: String,
        /// What went wrong.
        source: io::Error,
    },
}

/// Whether a write made a new file or replaced one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Written {
    /// There was no file at the path.
    Created,
    /// An existing file was replaced.
    Replaced,
}

/// A session's workspace folder. Paths given to it are relative to its root and can only
/// name things inside it.
#[derive(Debug, Clone)]
pub struct Workspace {
    /// Canonical: absolute, with no symbolic links, `.` or `..` in it.
    root: PathBuf,
    /// The most bytes of files writes may leave in it; `None` for no limit.
    max_bytes: Option<u64>,
}

impl Workspace {
    /// Opens the workspace folder at `root`, creating it (and its parents) when missing.
    pub fn open(root: impl Into<PathBuf>) -> Result<Workspace, WorkspaceError> {
        let root = root.into();
        let canonical = crate::private_folder::create(&root).and_then(|()| fs::canonicalize(&root));
        match canonical {
            Ok(canonical) if canonical.is_dir() => Ok(Workspace { root: canonical, max_bytes: None }),
            Ok(_) => Err(WorkspaceError::Open { root, source: io::Error::from(ErrorKind::NotADirectory) }),
            Err(source) => Err(WorkspaceError::Open { root, source }),
        }
    }

    /// This workspace with writes refused once its files would hold more than `max_bytes`
    /// bytes, or it more than a fixed number of files and folders.
    pub fn limited_to(self, max_bytes: u64) -> Workspace {
        Workspace { max_bytes: Some(max_bytes), ..self }
    }

    /// The workspace folder's canonical path.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The canonical path of something that exists inside the workspace, symbolic links
    /// resolved. `.` names the workspace folder itself.
    pub fn resolve_existing(&self, relative: &str) -> Result<PathBuf, WorkspaceError> {
        let parts = parse(relative)?;
        let lexical = self.join(&parts);
        match fs::canonicalize(&lexical) {
            Ok(real) if real.starts_with(&self.root) => Ok(real),
            Ok(_) => Err(outside(relative)),
            Err(error) if error.kind() == ErrorKind::NotFound => Err(self.explain_missing(relative, &parts)),
            Err(error) if error.kind() == ErrorKind::NotADirectory => {
                Err(WorkspaceError::NotAFolder { path: relative.to_owned(), folder: relative.to_owned() })
            }
            Err(source) => Err(WorkspaceError::Io { action: "open", path: relative.to_owned(), source }),
        }
    }

    /// The path a file may be written at: its folders exist (missing ones are created) and
    /// lie inside the workspace, and the file itself is absent or a regular file, never a
    /// symbolic link or a folder.
    pub fn resolve_for_write(&self, relative: &str) -> Result<PathBuf, WorkspaceError> {
        let parts = parse(relative)?;
        let Some((name, folders)) = parts.split_last() else {
            return Err(WorkspaceError::IsAFolder { path: relative.to_owned() });
        };
        let mut dir = self.root.clone();
        for depth in 0..folders.len() {
            dir = self.enter_or_create(&dir, relative, &parts[..=depth])?;
        }
        let target = dir.join(name);
        match fs::symlink_metadata(&target) {
            Ok(meta) => {
                check_write_target(relative, &meta)?;
                Ok(target)
            }
            Err(error) if error.kind() == ErrorKind::NotFound => Ok(target),
            Err(source) => Err(WorkspaceError::Io { action: "write", path: relative.to_owned(), source }),
        }
    }

    /// Reads a regular file of at most `limit` bytes.
    pub(crate) fn read_bytes(&self, relative: &str, limit: u64) -> Result<Vec<u8>, WorkspaceError> {
        let io_error = |source| WorkspaceError::Io { action: "read", path: relative.to_owned(), source };
        let path = self.resolve_existing(relative)?;
        // Checked before opening so that a FIFO is refused rather than blocking the open.
        check_readable(relative, &fs::metadata(&path).map_err(io_error)?, limit)?;
        let file = File::open(&path).map_err(io_error)?;
        self.confirm_inside(&file, relative)?;
        check_readable(relative, &file.metadata().map_err(io_error)?, limit)?;
        let mut bytes = Vec::new();
        // One byte past the limit tells a file that grew since the check from one that fits.
        file.take(limit.saturating_add(1)).read_to_end(&mut bytes).map_err(io_error)?;
        let read = u64::try_from(bytes.len()).unwrap_or(u64::MAX);
        if read > limit {
            return Err(WorkspaceError::TooLarge { path: relative.to_owned(), size: read, limit });
        }
        Ok(bytes)
    }

    /// Writes `contents` as the whole of a file, atomically: through a temporary file in the
    /// same folder, renamed over the target. A new file is the owner's alone (0600); a replaced
    /// one keeps the owner's permissions and loses any it gave others.
    pub(crate) fn write_bytes(&self, relative: &str, contents: &[u8]) -> Result<Written, WorkspaceError> {
        let io_error = |source| WorkspaceError::Io { action: "write", path: relative.to_owned(), source };
        if let Some(limit) = self.max_bytes {
            // Before any folder on the way is made, so a refused write leaves nothing behind.
            let lexical = self.join(&parse(relative)?);
            let size = u64::try_from(contents.len()).unwrap_or(u64::MAX);
            check_room(&self.root, &lexical, relative, size, limit)?;
        }
        let target = self.resolve_for_write(relative)?;
        let existing = match fs::symlink_metadata(&target) {
            Ok(meta) => Some(meta),
            Err(error) if error.kind() == ErrorKind::NotFound => None,
            Err(source) => return Err(io_error(source)),
        };
        if let Some(meta) = &existing {
            check_write_target(relative, meta)?;
        }
        let dir = target.parent().unwrap_or(&self.root);
        let (temp_path, mut file) = create_temp(dir).map_err(io_error)?;
        let result = self.confirm_inside(&file, relative).and_then(|()| {
            if let Some(meta) = &existing {
                file.set_permissions(owner_part(meta.permissions())).map_err(io_error)?;
            }
            file.write_all(contents).map_err(io_error)?;
            file.sync_all().map_err(io_error)?;
            fs::rename(&temp_path, &target).map_err(io_error)
        });
        if result.is_err() {
            // Best effort: the temporary file is ours and useless now; failing to remove it
            // must not hide the error that matters.
            let _ = fs::remove_file(&temp_path);
        }
        result.map(|()| if existing.is_some() { Written::Replaced } else { Written::Created })
    }

    fn join(&self, parts: &[&str]) -> PathBuf {
        parts.iter().fold(self.root.clone(), |path, part| path.join(part))
    }

    /// Steps from `dir` (canonical, inside) into the last folder of `parts`, creating it when
    /// missing, and returns its canonical path.
    fn enter_or_create(&self, dir: &Path, relative: &str, parts: &[&str]) -> Result<PathBuf, WorkspaceError> {
        let io_error = |source| WorkspaceError::Io { action: "create a folder for", path: relative.to_owned(), source };
        let Some(folder) = parts.last() else {
            return Ok(dir.to_owned());
        };
        let next = dir.join(folder);
        // A second look when someone else created the name between our look and our mkdir.
        for _ in 0..2 {
            match fs::symlink_metadata(&next) {
                Ok(meta) if meta.is_dir() => return Ok(next),
                Ok(meta) if meta.file_type().is_symlink() => {
                    let real = match fs::canonicalize(&next) {
                        Ok(real) => real,
                        Err(error) if error.kind() == ErrorKind::NotFound => {
                            return Err(WorkspaceError::BrokenLink { path: parts.join("/") });
                        }
                        Err(source) => return Err(io_error(source)),
                    };
                    if !real.starts_with(&self.root) {
                        return Err(outside(relative));
                    }
                    if !real.is_dir() {
                        return Err(WorkspaceError::NotAFolder { path: relative.to_owned(), folder: parts.join("/") });
                    }
                    return Ok(real);
                }
                Ok(_) => {
                    return Err(WorkspaceError::NotAFolder { path: relative.to_owned(), folder: parts.join("/") });
                }
                Err(error) if error.kind() == ErrorKind::NotFound => match private_dir_builder().create(&next) {
                    Ok(()) => return Ok(next),
                    Err(error) if error.kind() == ErrorKind::AlreadyExists => continue,
                    Err(source) => return Err(io_error(source)),
                },
                Err(source) => return Err(io_error(source)),
            }
        }
        Err(io_error(io::Error::other("the folder kept changing while it was being created")))
    }

    /// Why `parts` does not resolve: it leads outside (judged from the deepest part that
    /// exists), it is a broken link, or it is simply not there.
    fn explain_missing(&self, relative: &str, parts: &[&str]) -> WorkspaceError {
        for len in (0..parts.len()).rev() {
            if let Ok(real) = fs::canonicalize(self.join(&parts[..len])) {
                if !real.starts_with(&self.root) {
                    return outside(relative);
                }
                break;
            }
        }
        let is_link = fs::symlink_metadata(self.join(parts)).is_ok_and(|meta| meta.file_type().is_symlink());
        if is_link {
            WorkspaceError::BrokenLink { path: relative.to_owned() }
        } else {
            WorkspaceError::NotFound { path: relative.to_owned() }
        }
    }

    /// Checks where an open file really is, closing the gap between checking a path and
    /// opening it (see the module documentation).
    fn confirm_inside(&self, file: &File, relative: &str) -> Result<(), WorkspaceError> {
        match fs::read_link(format!("/proc/self/fd/{}", file.as_raw_fd())) {
            Ok(real) if real.starts_with(&self.root) => Ok(()),
            Ok(_) => Err(outside(relative)),
            // No procfs here: the path checks already made are all there is.
            Err(_) => Ok(()),
        }
    }
}

/// Checks a path as text and splits it into its names, dropping empty and `.` components.
fn parse(relative: &str) -> Result<Vec<&str>, WorkspaceError> {
    let owned = || relative.to_owned();
    if relative.is_empty() {
        return Err(WorkspaceError::EmptyPath);
    }
    if relative.len() > PATH_MAX_BYTES {
        return Err(WorkspaceError::PathTooLong { len: relative.len() });
    }
    if relative.contains('\0') {
        return Err(WorkspaceError::NulByte);
    }
    // Bidirectional controls too: a name such as "invoice\u{202E}fdp.exe" reads as
    // "invoiceexe.pdf" wherever it is shown.
    if relative.chars().any(|c| c.is_control() || beckon_core::is_bidi_control(c)) {
        return Err(WorkspaceError::ControlCharacter { path: owned() });
    }
    let bytes = relative.as_bytes();
    let drive_letter = bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':';
    if relative.contains('\\') || drive_letter {
        return Err(WorkspaceError::WindowsStyle { path: owned() });
    }
    if relative.starts_with('/') {
        return Err(WorkspaceError::Absolute { path: owned() });
    }
    let parts: Vec<&str> = relative.split('/').filter(|part| !part.is_empty() && *part != ".").collect();
    if parts.contains(&"..") {
        return Err(WorkspaceError::ParentComponent { path: owned() });
    }
    if parts.len() > PATH_MAX_DEPTH {
        return Err(WorkspaceError::TooDeep { path: owned(), depth: parts.len() });
    }
    Ok(parts)
}

fn outside(relative: &str) -> WorkspaceError {
    tracing::warn!(path = relative, "refused a path that leads outside the workspace");
    WorkspaceError::OutsideWorkspace { path: relative.to_owned() }
}

/// Refuses anything but a regular file of at most `limit` bytes.
fn check_readable(relative: &str, meta: &Metadata, limit: u64) -> Result<(), WorkspaceError> {
    if meta.is_dir() {
        return Err(WorkspaceError::IsAFolder { path: relative.to_owned() });
    }
    if !meta.is_file() {
        return Err(WorkspaceError::NotARegularFile { path: relative.to_owned() });
    }
    if meta.len() > limit {
        return Err(WorkspaceError::TooLarge { path: relative.to_owned(), size: meta.len(), limit });
    }
    Ok(())
}

/// Refuses to replace anything but a writable regular file; `meta` must not follow links.
fn check_write_target(relative: &str, meta: &Metadata) -> Result<(), WorkspaceError> {
    let path = relative.to_owned();
    if meta.file_type().is_symlink() {
        Err(WorkspaceError::WriteThroughLink { path })
    } else if meta.is_dir() {
        Err(WorkspaceError::IsAFolder { path })
    } else if !meta.is_file() {
        Err(WorkspaceError::NotARegularFile { path })
    } else if meta.permissions().readonly() {
        Err(WorkspaceError::ReadOnly { path })
    } else {
        Ok(())
    }
}

/// Refuses a write of `new_len` bytes to `target` (which may not exist yet) that would take
/// the workspace past `limit` bytes or, for a new file, past [`budget::MAX_ENTRIES`].
fn check_room(root: &Path, target: &Path, relative: &str, new_len: u64, limit: u64) -> Result<(), WorkspaceError> {
    let usage = budget::usage(root).map_err(|source| WorkspaceError::Io {
        action: "measure the workspace for",
        path: relative.to_owned(),
        source,
    })?;
    let replaced = match target.symlink_metadata() {
        Ok(meta) if meta.is_file() => Some(meta.len()),
        Ok(_) => Some(0),
        Err(_) => None,
    };
    let after = usage.bytes.saturating_sub(replaced.unwrap_or(0)).saturating_add(new_len);
    if after > limit {
        return Err(WorkspaceError::Full { path: relative.to_owned(), used: usage.bytes, size: new_len, limit });
    }
    if replaced.is_none() && usage.entries >= budget::MAX_ENTRIES {
        return Err(WorkspaceError::TooManyEntries { path: relative.to_owned() });
    }
    Ok(())
}

/// `permissions` less whatever they give the group and others.
fn owner_part(permissions: fs::Permissions) -> fs::Permissions {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::Permissions::from_mode(permissions.mode() & 0o700)
    }
    #[cfg(not(unix))]
    permissions
}

/// A builder of one folder, private to the owner (see [`crate::private_folder`]).
fn private_dir_builder() -> fs::DirBuilder {
    let mut builder = fs::DirBuilder::new();
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, crate::private_folder::FOLDER_MODE);
    builder
}

/// Creates a new, empty temporary file in `dir` under a random name. `create_new` fails
/// rather than follow a link that happens to sit at that name.
fn create_temp(dir: &Path) -> io::Result<(PathBuf, File)> {
    let mut last_error = io::Error::other("no temporary file name was tried");
    for _ in 0..8 {
        let path = dir.join(format!(".beckon-write-{:016x}.tmp", rand::random::<u64>()));
        let mut options = OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, crate::private_folder::FILE_MODE);
        match options.open(&path) {
            Ok(file) => return Ok((path, file)),
            Err(error) if error.kind() == ErrorKind::AlreadyExists => last_error = error,
            Err(error) => return Err(error),
        }
    }
    Err(last_error)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_keeps_names_and_drops_empty_and_dot_components() {
        assert_eq!(parse("a/b.txt").unwrap(), ["a", "b.txt"]);
        assert_eq!(parse("./a//b/").unwrap(), ["a", "b"]);
        assert!(parse(".").unwrap().is_empty());
        assert_eq!(parse("...").unwrap(), ["..."]);
        assert_eq!(parse("a..b/..c").unwrap(), ["a..b", "..c"]);
    }

    #[test]
    fn parse_refuses_every_kind_of_bad_path() {
        let refused = |path: &str| parse(path).unwrap_err();
        assert!(matches!(refused(""), WorkspaceError::EmptyPath));
        assert!(matches!(refused("/etc/passwd"), WorkspaceError::Absolute { .. }));
        assert!(matches!(refused("//server/share"), WorkspaceError::Absolute { .. }));
        assert!(matches!(refused(".."), WorkspaceError::ParentComponent { .. }));
        assert!(matches!(refused("a/../b"), WorkspaceError::ParentComponent { .. }));
        assert!(matches!(refused("a/./../../x"), WorkspaceError::ParentComponent { .. }));
        assert!(matches!(refused("a\\..\\x"), WorkspaceError::WindowsStyle { .. }));
        assert!(matches!(refused("C:/Windows"), WorkspaceError::WindowsStyle { .. }));
        assert!(matches!(refused("c:x"), WorkspaceError::WindowsStyle { .. }));
        assert!(matches!(refused("a\0b"), WorkspaceError::NulByte));
        assert!(matches!(refused("a\nb"), WorkspaceError::ControlCharacter { .. }));
        assert!(matches!(refused("invoice\u{202E}fdp.exe"), WorkspaceError::ControlCharacter { .. }));
        assert!(matches!(refused(&"x".repeat(PATH_MAX_BYTES + 1)), WorkspaceError::PathTooLong { len: 1025 }));
        let deep = vec!["d"; PATH_MAX_DEPTH + 1].join("/");
        assert!(matches!(refused(&deep), WorkspaceError::TooDeep { depth: 33, .. }));
    }

    #[test]
    fn parse_accepts_the_limits_exactly() {
        assert_eq!(parse(&"x".repeat(PATH_MAX_BYTES)).unwrap().len(), 1);
        assert_eq!(parse(&vec!["d"; PATH_MAX_DEPTH].join("/")).unwrap().len(), PATH_MAX_DEPTH);
    }

    #[test]
    fn messages_name_the_path_and_say_what_to_do() {
        let message = parse("a/../../x").unwrap_err().to_string();
        assert!(message.starts_with("\"a/../../x\" contains '..'"), "{message}");
        assert!(message.contains("from the workspace folder down"), "{message}");
        let message = parse("/etc/passwd").unwrap_err().to_string();
        assert!(message.contains("\"/etc/passwd\" is an absolute path"), "{message}");
        assert!(message.contains("notes/todo.md"), "{message}");
    }

    #[test]
    fn a_sibling_folder_sharing_the_root_name_as_a_prefix_is_outside() {
        let base = tempfile::tempdir().unwrap();
        let ws = Workspace::open(base.path().join("ws")).unwrap();
        fs::create_dir(base.path().join("ws-evil")).unwrap();
        fs::write(base.path().join("ws-evil/secret"), "s").unwrap();
        std::os::unix::fs::symlink(base.path().join("ws-evil/secret"), ws.root().join("link")).unwrap();
        assert!(matches!(ws.resolve_existing("link"), Err(WorkspaceError::OutsideWorkspace { .. })));
    }

    #[test]
    fn open_creates_the_folder_and_keeps_its_canonical_path() {
        let base = tempfile::tempdir().unwrap();
        let ws = Workspace::open(base.path().join("a/b/../c")).unwrap();
        assert_eq!(ws.root(), fs::canonicalize(base.path().join("a/c")).unwrap());
        assert_eq!(ws.resolve_existing(".").unwrap(), ws.root());
        fs::write(base.path().join("file"), "").unwrap();
        assert!(matches!(Workspace::open(base.path().join("file")), Err(WorkspaceError::Open { .. })));
    }

    #[test]
    fn writes_leave_no_temporary_file_behind() {
        let base = tempfile::tempdir().unwrap();
        let ws = Workspace::open(base.path()).unwrap();
        assert_eq!(ws.write_bytes("a.txt", b"one").unwrap(), Written::Created);
        assert_eq!(ws.write_bytes("a.txt", b"two").unwrap(), Written::Replaced);
        let names: Vec<_> = fs::read_dir(ws.root()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, ["a.txt"]);
        assert_eq!(fs::read(ws.root().join("a.txt")).unwrap(), b"two");
    }

    #[test]
    fn a_replaced_file_keeps_the_owners_permissions_and_a_read_only_one_is_refused() {
        use std::os::unix::fs::PermissionsExt;
        let base = tempfile::tempdir().unwrap();
        let ws = Workspace::open(base.path()).unwrap();
        let script = ws.root().join("run.sh");
        fs::write(&script, "old").unwrap();
        fs::set_permissions(&script, fs::Permissions::from_mode(0o750)).unwrap();
        ws.write_bytes("run.sh", b"new").unwrap();
        assert_eq!(fs::metadata(&script).unwrap().permissions().mode() & 0o777, 0o700, "the owner's part is kept");

        fs::set_permissions(&script, fs::Permissions::from_mode(0o444)).unwrap();
        assert!(matches!(ws.write_bytes("run.sh", b"newer"), Err(WorkspaceError::ReadOnly { .. })));
        assert_eq!(fs::read(&script).unwrap(), b"new");
    }

    #[test]
    fn new_files_and_folders_are_the_owners_alone() {
        use std::os::unix::fs::PermissionsExt;
        let base = tempfile::tempdir().unwrap();
        let ws = Workspace::open(base.path().join("ws")).unwrap();
        ws.write_bytes("notes/draft.md", b"secret").unwrap();
        let mode = |path: &Path| fs::metadata(path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(ws.root()), 0o700);
        assert_eq!(mode(&ws.root().join("notes")), 0o700);
        assert_eq!(mode(&ws.root().join("notes/draft.md")), 0o600);
    }

    #[test]
    fn replacing_a_hard_link_leaves_the_other_name_unchanged() {
        let base = tempfile::tempdir().unwrap();
        let ws = Workspace::open(base.path().join("ws")).unwrap();
        let outside = base.path().join("outside.txt");
        fs::write(&outside, "original").unwrap();
        fs::hard_link(&outside, ws.root().join("linked.txt")).unwrap();
        ws.write_bytes("linked.txt", b"changed").unwrap();
        assert_eq!(fs::read(&outside).unwrap(), b"original");
        assert_eq!(fs::read(ws.root().join("linked.txt")).unwrap(), b"changed");
    }

    #[test]
    fn an_open_file_inside_is_confirmed_and_one_outside_is_refused() {
        let base = tempfile::tempdir().unwrap();
        let ws = Workspace::open(base.path().join("ws")).unwrap();
        fs::write(ws.root().join("in"), "").unwrap();
        fs::write(base.path().join("out"), "").unwrap();
        assert!(ws.confirm_inside(&File::open(ws.root().join("in")).unwrap(), "in").is_ok());
        let outside_file = File::open(base.path().join("out")).unwrap();
        if Path::new("/proc/self/fd").exists() {
            assert!(matches!(ws.confirm_inside(&outside_file, "out"), Err(WorkspaceError::OutsideWorkspace { .. })));
        }
    }

    #[test]
    fn reading_a_fifo_is_refused_without_blocking() {
        let base = tempfile::tempdir().unwrap();
        let ws = Workspace::open(base.path()).unwrap();
        let made = std::process::Command::new("mkfifo").arg(ws.root().join("pipe")).status();
        if made.is_ok_and(|status| status.success()) {
            assert!(matches!(ws.read_bytes("pipe", 10), Err(WorkspaceError::NotARegularFile { .. })));
            assert!(matches!(ws.resolve_for_write("pipe"), Err(WorkspaceError::NotARegularFile { .. })));
        }
    }

    #[test]
    fn room_is_what_the_write_adds_less_what_it_replaces() {
        let root = tempfile::tempdir().unwrap();
        fs::write(root.path().join("old.txt"), "x".repeat(900)).unwrap();
        let old = root.path().join("old.txt");
        let new = root.path().join("new.txt");
        assert!(check_room(root.path(), &old, "old.txt", 1000, 1000).is_ok(), "replacing 900 with 1000");
        assert!(check_room(root.path(), &new, "new.txt", 100, 1000).is_ok());
        let err = check_room(root.path(), &new, "new.txt", 101, 1000).unwrap_err();
        assert!(matches!(err, WorkspaceError::Full { used: 900, size: 101, limit: 1000, .. }), "{err}");
    }

    #[test]
    fn a_full_count_of_entries_refuses_new_files_but_not_replacements() {
        let root = tempfile::tempdir().unwrap();
        for n in 0..budget::MAX_ENTRIES {
            fs::File::create(root.path().join(n.to_string())).unwrap();
        }
        let err = check_room(root.path(), &root.path().join("one-more"), "one-more", 0, u64::MAX).unwrap_err();
        assert!(matches!(err, WorkspaceError::TooManyEntries { .. }), "{err}");
        assert!(check_room(root.path(), &root.path().join("7"), "7", 10, u64::MAX).is_ok());
    }
}
