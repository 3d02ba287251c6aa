//! [`FileStore`]: credentials in files, one per record, for hosts without
//! an OS keychain (or that choose files). The directory is `0700`, every
//! file `0600`; a record is written to a temporary file in the same
//! directory and renamed over the old one, so a reader (or a Ctrl-C)
//! never sees half a record. A write is a compare-and-swap under an
//! `flock` of the store's write lock, so it holds across processes; each
//! key has a lock of its own besides ([`CredentialStore::lock`]) that a
//! refresh holds, so N processes that find an expired token refresh once.
//!
//! A file that cannot be read as a record is reported with its path and
//! left as it is: never overwritten, never deleted.

use std::fs::{self, File, OpenOptions};
use std::io::{ErrorKind, Write as _};
use std::os::unix::fs::{DirBuilderExt as _, OpenOptionsExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use sha2::{Digest as _, Sha256};

use crate::store::{CredentialStore, Record, Revision, StoreError, StoreKey, StoreLock};

/// The environment variable naming the credential directory (overrides the
/// default of [`FileStore::default_dir`]).
pub const CREDENTIALS_DIR_ENV: &str = "MCP_CREDENTIALS_DIR";

/// The format version written in each file.
const FORMAT: u32 = 1;

/// Largest credential file read: 1 MiB (a record is a few hundred bytes).
const MAX_FILE_BYTES: u64 = 1024 * 1024;

/// One file's content.
#[derive(Serialize, Deserialize)]
struct FileRecord {
    format: u32,
    key: StoreKey,
    revision: u64,
    record: Record,
}

/// Credentials in a directory of `0600` files (see the module docs).
#[derive(Debug, Clone)]
pub struct FileStore {
    dir: PathBuf,
}

impl FileStore {
    /// A store in `dir`, created (with its parents) as `0700` when missing;
    /// an existing directory that others can read is narrowed to `0700`
    /// (with a warning).
    ///
    /// Errors: [`StoreError::Backend`] when the directory cannot be
    /// created or is not a directory.
    pub fn new(dir: impl Into<PathBuf>) -> Result<FileStore, StoreError> {
        let dir = dir.into();
        let io = |what: &str, e: std::io::Error| {
            StoreError::backend(format!("{what} {}", dir.display()), e)
        };
        match fs::metadata(&dir) {
            Ok(meta) if !meta.is_dir() => {
                return Err(StoreError::backend_message(format!(
                    "{} is not a directory",
                    dir.display()
                )));
            }
            Ok(meta) => {
                let mode = meta.permissions().mode() & 0o777;
                if mode & 0o077 != 0 {
                    tracing::warn!(dir = %dir.display(), mode = format!("{mode:o}"), "the credential directory was readable by others; narrowed to 0700");
                    fs::set_permissions(&dir, fs::Permissions::from_mode(0o700))
                        .map_err(|e| io("cannot narrow the permissions of", e))?;
                }
            }
            Err(e) if e.kind() == ErrorKind::NotFound => {
                fs::DirBuilder::new()
                    .recursive(true)
                    .mode(0o700)
                    .create(&dir)
                    .map_err(|e| io("cannot create", e))?;
                // `mode` is filtered by the umask: say it exactly.
                fs::set_permissions(&dir, fs::Permissions::from_mode(0o700))
                    .map_err(|e| io("cannot set the permissions of", e))?;
            }
            Err(e) => return Err(io("cannot read", e)),
        }
        Ok(FileStore { dir })
    }

    /// The default directory: `$MCP_CREDENTIALS_DIR`, else
    /// `$XDG_CONFIG_HOME/mcp-client-stack/credentials`, else
    /// `~/.config/mcp-client-stack/credentials`; `None` when neither
    /// variable nor `HOME` is set.
    pub fn default_dir() -> Option<PathBuf> {
        let set = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
        if let Some(dir) = set(CREDENTIALS_DIR_ENV) {
            return Some(PathBuf::from(dir));
        }
        let config = set("XDG_CONFIG_HOME")
            .map(PathBuf::from)
            .or_else(|| set("HOME").map(|h| PathBuf::from(h).join(".config")))?;
        Some(config.join("mcp-client-stack").join("credentials"))
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The file of `key`: its kind and a hash of the key (the key itself
    /// is inside; URLs make poor file names).
    pub fn path_of(&self, key: &StoreKey) -> PathBuf {
        self.dir.join(format!("{}.json", file_stem(key)))
    }

    fn lock_path(&self, key: &StoreKey) -> PathBuf {
        self.dir.join(format!(".{}.lock", file_stem(key)))
    }

    fn write_lock_path(&self) -> PathBuf {
        self.dir.join(".write.lock")
    }
}

pub(crate) fn file_stem(key: &StoreKey) -> String {
    let kind = match key {
        StoreKey::Client { .. } => "client",
        StoreKey::Tokens { .. } => "tokens",
        StoreKey::DpopKey { .. } => "dpop-key",
    };
    let json = serde_json::to_vec(key).unwrap_or_default();
    let digest = Sha256::digest(&json);
    let hex: String = digest[..16].iter().map(|b| format!("{b:02x}")).collect();
    format!("{kind}-{hex}")
}

fn backend(what: &str, path: &Path, e: std::io::Error) -> StoreError {
    StoreError::backend(format!("{what} {}", path.display()), e)
}

/// Takes an exclusive `flock` on `path` (created `0600` when missing),
/// waiting for it in a blocking thread. The lock holds until the returned
/// file is dropped.
async fn flock(path: PathBuf) -> Result<File, StoreError> {
    let waited = tokio::task::spawn_blocking(move || {
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .mode(0o600)
            .open(&path)
            .map_err(|e| backend("cannot open the lock file", &path, e))?;
        rustix::fs::flock(&file, rustix::fs::FlockOperation::LockExclusive)
            .map_err(|e| backend("cannot lock", &path, e.into()))?;
        Ok(file)
    })
    .await;
    waited.map_err(|e| StoreError::backend("the lock task failed", e))?
}

/// The record in `path`: `None` when there is no file.
fn read(path: &Path) -> Result<Option<FileRecord>, StoreError> {
    let corrupt = |problem: String| StoreError::Corrupt {
        path: path.to_owned(),
        problem,
    };
    let file = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(backend("cannot read", path, e)),
    };
    let meta = file
        .metadata()
        .map_err(|e| backend("cannot read", path, e))?;
    if meta.len() > MAX_FILE_BYTES {
        return Err(corrupt(format!("larger than {MAX_FILE_BYTES} bytes")));
    }
    let mode = meta.permissions().mode() & 0o777;
    if mode & 0o077 != 0 {
        tracing::warn!(path = %path.display(), mode = format!("{mode:o}"), "a credential file is readable by others; narrowing it to 0600");
        let _ = fs::set_permissions(path, fs::Permissions::from_mode(0o600));
    }
    let text = fs::read(path).map_err(|e| backend("cannot read", path, e))?;
    // A file edited by hand on Windows may open with a byte order mark.
    let text = mcp_transport::bom::strip_bom(&text, &path.display());
    // serde's message may quote the content: only its position is shown.
    let record: FileRecord = serde_json::from_slice(text).map_err(|e| {
        corrupt(format!(
            "not a credential record (line {}, column {})",
            e.line(),
            e.column()
        ))
    })?;
    if record.format != FORMAT {
        return Err(corrupt(format!(
            "format {} is not the one this version reads ({FORMAT})",
            record.format
        )));
    }
    Ok(Some(record))
}

/// Removes a temporary file unless it was renamed into place.
struct TempFile {
    path: PathBuf,
    kept: bool,
}

impl Drop for TempFile {
    fn drop(&mut self) {
        if !self.kept {
            let _ = fs::remove_file(&self.path);
        }
    }
}

/// Writes `content` to `path` atomically: a `0600` temporary file beside
/// it, synced, renamed over it, and the directory synced.
fn write_atomic(dir: &Path, path: &Path, content: &[u8]) -> Result<(), StoreError> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut temp = TempFile {
        path: dir.join(format!(
            ".{name}.{}.{:016x}.tmp",
            std::process::id(),
            rand::random::<u64>()
        )),
        kept: false,
    };
    let mut file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&temp.path)
        .map_err(|e| backend("cannot create", &temp.path, e))?;
    file.write_all(content)
        .and_then(|()| file.sync_all())
        .map_err(|e| backend("cannot write", &temp.path, e))?;
    drop(file);
    fs::rename(&temp.path, path).map_err(|e| backend("cannot replace", path, e))?;
    temp.kept = true;
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

impl FileStore {
    /// Runs `f` under the store's write lock, in a blocking thread.
    async fn under_write_lock<T: Send + 'static>(
        &self,
        f: impl FnOnce(&FileStore) -> Result<T, StoreError> + Send + 'static,
    ) -> Result<T, StoreError> {
        let lock = flock(self.write_lock_path()).await?;
        let store = self.clone();
        let done = tokio::task::spawn_blocking(move || {
            let out = f(&store);
            drop(lock);
            out
        })
        .await;
        done.map_err(|e| StoreError::backend("the store task failed", e))?
    }
}

#[async_trait]
impl CredentialStore for FileStore {
    async fn get(&self, key: &StoreKey) -> Result<Option<(Record, Revision)>, StoreError> {
        let path = self.path_of(key);
        let found = tokio::task::spawn_blocking(move || read(&path))
            .await
            .map_err(|e| StoreError::backend("the store task failed", e))??;
        Ok(found
            .filter(|f| &f.key == key)
            .map(|f| (f.record, Revision(f.revision))))
    }

    async fn put(
        &self,
        key: &StoreKey,
        record: Record,
        expected: Option<Revision>,
    ) -> Result<Revision, StoreError> {
        let key = key.clone();
        self.under_write_lock(move |store| {
            let path = store.path_of(&key);
            let current = read(&path)?.map(|f| Revision(f.revision));
            if current != expected {
                return Err(StoreError::Conflict);
            }
            // Random, not counted: a record deleted and written again must
            // not come back with a revision someone still holds.
            let mut revision = rand::random::<u64>();
            while Some(Revision(revision)) == current {
                revision = rand::random::<u64>();
            }
            let content = serde_json::to_vec_pretty(&FileRecord {
                format: FORMAT,
                key,
                revision,
                record,
            })
            .map_err(|e| StoreError::backend("cannot encode a record", e))?;
            write_atomic(&store.dir, &path, &content)?;
            Ok(Revision(revision))
        })
        .await
    }

    async fn delete(&self, key: &StoreKey) -> Result<(), StoreError> {
        let key = key.clone();
        self.under_write_lock(move |store| {
            let path = store.path_of(&key);
            // A corrupt file is not removed behind the user's back.
            read(&path)?;
            match fs::remove_file(&path) {
                Ok(()) => Ok(()),
                Err(e) if e.kind() == ErrorKind::NotFound => Ok(()),
                Err(e) => Err(backend("cannot remove", &path, e)),
            }
        })
        .await
    }

    async fn keys(&self) -> Result<Vec<StoreKey>, StoreError> {
        let dir = self.dir.clone();
        let listed = tokio::task::spawn_blocking(move || {
            let entries = fs::read_dir(&dir).map_err(|e| backend("cannot list", &dir, e))?;
            let mut keys = Vec::new();
            for entry in entries.flatten() {
                let path = entry.path();
                let name = entry.file_name().to_string_lossy().into_owned();
                if name.starts_with('.') || !name.ends_with(".json") {
                    continue;
                }
                match read(&path) {
                    Ok(Some(f)) => keys.push(f.key),
                    Ok(None) => {}
                    // Logged as an error: the user must see it (and remove
                    // the file) to use that login again.
                    Err(e) => tracing::error!(error = %e, "skipped a credential file"),
                }
            }
            Ok(keys)
        })
        .await;
        listed.map_err(|e| StoreError::backend("the store task failed", e))?
    }

    async fn lock(&self, key: &StoreKey) -> Result<StoreLock, StoreError> {
        Ok(StoreLock::holding(flock(self.lock_path(key)).await?))
    }

    fn describe(&self) -> String {
        format!("files in {} (0600)", self.dir.display())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::secret::Secret;
    use crate::store::TokenRecord;

    fn temp_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "mcp-auth-filestore-{name}-{}-{:x}",
            std::process::id(),
            rand::random::<u32>()
        ));
        let _ = fs::remove_dir_all(&dir);
        dir
    }

    fn tokens(access: &str) -> Record {
        let mut t = TokenRecord::new(Secret::new(access));
        t.refresh_token = Some(Secret::new("refresh-secret-value"));
        Record::Tokens(t)
    }

    fn key() -> StoreKey {
        StoreKey::tokens("https://r.example/mcp", "https://as.example", "default")
    }

    #[tokio::test]
    async fn permissions_atomic_cas_and_delete() {
        let dir = temp_dir("cas");
        let store = FileStore::new(dir.join("nested")).unwrap();
        let mode = fs::metadata(store.dir()).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o700);
        assert!(store.get(&key()).await.unwrap().is_none());
        let r1 = store.put(&key(), tokens("a"), None).await.unwrap();
        let file = store.path_of(&key());
        let mode = fs::metadata(&file).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        assert!(matches!(
            store.put(&key(), tokens("b"), None).await,
            Err(StoreError::Conflict)
        ));
        let r2 = store.put(&key(), tokens("b"), Some(r1)).await.unwrap();
        assert_ne!(r1, r2);
        assert!(matches!(
            store.put(&key(), tokens("c"), Some(r1)).await,
            Err(StoreError::Conflict)
        ));
        // Another store on the same directory (another process) sees it.
        let other = FileStore::new(store.dir()).unwrap();
        let (record, rev) = other.get(&key()).await.unwrap().unwrap();
        assert_eq!((record, rev), (tokens("b"), r2));
        assert_eq!(other.keys().await.unwrap(), vec![key()]);
        // Nothing but the record and the lock files is left behind.
        let names: Vec<String> = fs::read_dir(store.dir())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| !n.ends_with(".lock"))
            .collect();
        assert_eq!(names.len(), 1, "{names:?}");
        store.delete(&key()).await.unwrap();
        assert!(store.get(&key()).await.unwrap().is_none());
        store.delete(&key()).await.unwrap();
        assert!(format!("{store:?}").contains("FileStore"));
        fs::remove_dir_all(&dir).unwrap();
    }

    #[tokio::test]
    async fn a_corrupt_file_is_reported_with_its_path_and_never_overwritten() {
        let dir = temp_dir("corrupt");
        let store = FileStore::new(&dir).unwrap();
        let path = store.path_of(&key());
        fs::write(&path, b"{\"format\":1,\"key\":secret-looking-garbage").unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o600)).unwrap();
        let before = fs::read(&path).unwrap();
        for result in [
            store.get(&key()).await.map(|_| ()),
            store.put(&key(), tokens("a"), None).await.map(|_| ()),
            store.delete(&key()).await,
        ] {
            let e = result.unwrap_err();
            assert!(matches!(e, StoreError::Corrupt { .. }), "{e:?}");
            let text = e.to_string();
            assert!(text.contains(&path.display().to_string()), "{text}");
            assert!(!text.contains("secret-looking-garbage"), "{text}");
        }
        assert_eq!(fs::read(&path).unwrap(), before, "left untouched");
        // The other records still list.
        let other = StoreKey::client("https://as.example");
        store
            .put(
                &other,
                Record::Client(crate::store::ClientRecord::new("c", None)),
                None,
            )
            .await
            .unwrap();
        assert_eq!(store.keys().await.unwrap(), vec![other]);
        fs::remove_dir_all(&dir).unwrap();
    }

    /// A record file that opens with a UTF-8 byte order mark (saved by an
    /// editor on Windows) is read, and can be replaced.
    /// A DPoP key is a record of its own kind, kept across processes; a
    /// token file written before tokens could be DPoP-bound still reads
    /// (as a bearer token).
    #[tokio::test]
    async fn a_dpop_key_is_stored_and_old_token_files_still_read() {
        let dir = temp_dir("dpop");
        let store = FileStore::new(&dir).unwrap();
        let (_, record) = crate::dpop::DpopKey::generate().unwrap();
        let dpop = StoreKey::dpop_key("https://as.example");
        store
            .put(&dpop, Record::DpopKey(record.clone()), None)
            .await
            .unwrap();
        let path = store.path_of(&dpop);
        assert!(
            path.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("dpop-key-"),
            "{path:?}"
        );
        let again = FileStore::new(&dir).unwrap();
        let (read, _) = again.get(&dpop).await.unwrap().unwrap();
        assert_eq!(read, Record::DpopKey(record));
        assert!(again.keys().await.unwrap().contains(&dpop));

        let old = r#"{"format":1,"key":{"Tokens":{"resource":"https://r.example/mcp","issuer":"https://as.example","account":"default"}},"revision":7,"record":{"Tokens":{"access_token":"at-old","refresh_token":null,"expires_at":null,"received_at":null,"scope":null}}}"#;
        fs::write(store.path_of(&key()), old).unwrap();
        fs::set_permissions(store.path_of(&key()), fs::Permissions::from_mode(0o600)).unwrap();
        let (record, revision) = store.get(&key()).await.unwrap().unwrap();
        assert_eq!(revision, Revision(7));
        let Record::Tokens(t) = record else {
            panic!("{record:?}")
        };
        assert_eq!((t.access_token.expose(), t.dpop_jkt), ("at-old", None));
        fs::remove_dir_all(&dir).unwrap();
    }

    #[tokio::test]
    async fn a_byte_order_mark_opening_a_record_is_skipped() {
        let dir = temp_dir("bom");
        let store = FileStore::new(&dir).unwrap();
        let revision = store.put(&key(), tokens("a"), None).await.unwrap();
        let path = store.path_of(&key());
        let mut text = b"\xEF\xBB\xBF".to_vec();
        text.extend(fs::read(&path).unwrap());
        fs::write(&path, &text).unwrap();
        let (record, read) = store.get(&key()).await.unwrap().unwrap();
        assert_eq!((record, read), (tokens("a"), revision));
        store
            .put(&key(), tokens("b"), Some(revision))
            .await
            .unwrap();
        let (record, _) = store.get(&key()).await.unwrap().unwrap();
        assert_eq!(record, tokens("b"));
        fs::remove_dir_all(&dir).unwrap();
    }

    #[tokio::test]
    async fn a_wide_directory_is_narrowed() {
        let dir = temp_dir("wide");
        fs::create_dir_all(&dir).unwrap();
        fs::set_permissions(&dir, fs::Permissions::from_mode(0o755)).unwrap();
        FileStore::new(&dir).unwrap();
        let mode = fs::metadata(&dir).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o700);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_key_lock_excludes_a_second_holder_until_dropped() {
        let dir = temp_dir("lock");
        let store = FileStore::new(&dir).unwrap();
        let held = store.lock(&key()).await.unwrap();
        let other = FileStore::new(&dir).unwrap();
        let (tx, mut rx) = tokio::sync::oneshot::channel();
        let waiter = tokio::spawn(async move {
            let lock = other.lock(&key()).await.unwrap();
            let _ = tx.send(());
            drop(lock);
        });
        // The second holder cannot get it while the first lives: a write
        // meanwhile succeeds (the key lock is not the write lock), and the
        // waiter has still not got in.
        store.put(&key(), tokens("a"), None).await.unwrap();
        assert!(rx.try_recv().is_err(), "the lock was taken twice");
        drop(held);
        waiter.await.unwrap();
        fs::remove_dir_all(&dir).unwrap();
    }
}
