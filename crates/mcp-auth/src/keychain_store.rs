//! [`KeychainStore`] (feature `keychain`, through `keyring-core`: on Linux
//! the Secret Service over D-Bus; on macOS the login keychain and on Windows
//! the Credential Manager, which our CI neither compiles nor tests): the secrets of a record (access and
//! refresh tokens, a client secret) go to the OS keychain; everything else,
//! with a reference to them, stays in a [`FileStore`], whose files, locks
//! and compare-and-swap it keeps. Only secrets reach the keychain, each
//! its own item, so no item comes near a platform's size limit.
//!
//! A write puts the new secrets under new item names first, then swaps the
//! file; the old items are removed after. A reader that raced with a
//! write and finds an item gone reads the file again.

use std::sync::Arc;

use async_trait::async_trait;
use keyring_core::{CredentialStore as Keyring, Entry};

use crate::file_store::FileStore;
use crate::secret::Secret;
use crate::store::{CredentialStore, Record, Revision, StoreError, StoreKey, StoreLock};

/// The keychain's service name of every item.
const SERVICE: &str = "mcp-client-stack";

/// What a secret's place in the file holds: this prefix and the item name
/// (`NAME`), or, for a secret split over several items, `NAME*N`: the
/// items `NAME.0` … `NAME.{N-1}`, in order.
const MARK: &str = "keychain:";

/// The most one keychain item holds: 1 280 characters. Windows' Credential
/// Manager keeps at most 2 560 bytes per credential and stores a password
/// as UTF-16; a longer secret (a large JWT) is split over several items,
/// the same way on every platform, so the Linux tests cover the splitting.
const ITEM_MAX_CHARS: usize = 1280;

/// The most items one secret is split over (100 KiB of token): a file that
/// names more is not followed.
const MAX_PARTS: usize = 80;

/// Secrets in the OS keychain, the rest in files (see the module docs).
#[derive(Clone)]
pub struct KeychainStore {
    files: FileStore,
    keyring: Arc<Keyring>,
}

impl std::fmt::Debug for KeychainStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KeychainStore")
            .field("files", &self.files)
            .finish()
    }
}

fn keyring_error(what: &str, e: keyring_core::Error) -> StoreError {
    StoreError::backend(format!("the OS keychain: {what}"), e)
}

impl KeychainStore {
    /// A store whose secrets go to the OS keychain (the session's Secret
    /// Service on Linux) and whose
    /// records live in `files`. Checks that the keychain answers (a
    /// locked or absent one is an error here, so a host can fall back to
    /// files with one warning).
    ///
    /// Errors: [`StoreError::Backend`] when no keychain answers.
    pub async fn new(files: FileStore) -> Result<KeychainStore, StoreError> {
        let keyring = tokio::task::spawn_blocking(|| -> Result<Arc<Keyring>, StoreError> {
            let store = platform_store().map_err(|e| keyring_error("not available", e))?;
            // A lookup proves the service answers (and is unlocked).
            let probe = Entry::new_in_store(&store, SERVICE, "probe")
                .map_err(|e| keyring_error("cannot use it", e))?;
            match probe.get_password() {
                Ok(_) | Err(keyring_core::Error::NoEntry) => Ok(store),
                Err(e) => Err(keyring_error("it does not answer", e)),
            }
        })
        .await
        .map_err(|e| StoreError::backend("the keychain task failed", e))??;
        Ok(KeychainStore { files, keyring })
    }

    async fn blocking<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Arc<Keyring>) -> Result<T, StoreError> + Send + 'static,
    ) -> Result<T, StoreError> {
        let keyring = self.keyring.clone();
        tokio::task::spawn_blocking(move || f(&keyring))
            .await
            .map_err(|e| StoreError::backend("the keychain task failed", e))?
    }
}

/// This platform's keychain: the Secret Service (Linux), the login keychain
/// (macOS), the Credential Manager (Windows). The macOS and Windows stores
/// are written against their crates' `Store::new() -> Result<Arc<Store>>`
/// and are not compiled by our CI.
fn platform_store() -> Result<Arc<Keyring>, keyring_core::Error> {
    #[cfg(target_os = "linux")]
    let store: Arc<Keyring> = zbus_secret_service_keyring_store::Store::new()?;
    #[cfg(target_os = "macos")]
    let store: Arc<Keyring> = apple_native_keyring_store::keychain::Store::new()?;
    #[cfg(windows)]
    let store: Arc<Keyring> = windows_native_keyring_store::Store::new()?;
    Ok(store)
}

/// The name of this platform's keychain, for [`CredentialStore::describe`].
const KEYCHAIN_NAME: &str = if cfg!(target_os = "macos") {
    "the macOS Keychain"
} else if cfg!(windows) {
    "the Windows Credential Manager"
} else {
    "the Secret Service"
};

/// The secrets of `record`, each with the field it came from.
fn secrets_of(record: &mut Record) -> Vec<&mut Secret> {
    match record {
        Record::Client(c) => c.client_secret.iter_mut().collect(),
        Record::Tokens(t) => {
            let mut v = vec![&mut t.access_token];
            v.extend(t.refresh_token.iter_mut());
            v
        }
        Record::DpopKey(k) => vec![&mut k.private_key],
    }
}

/// The item names a stored record refers to.
fn items_of(record: &mut Record) -> Vec<String> {
    secrets_of(record)
        .into_iter()
        .filter_map(|s| s.expose().strip_prefix(MARK).map(parts))
        .flatten()
        .collect()
}

/// The items of a reference (`NAME`, or `NAME*N`; see [`MARK`]).
fn parts(reference: &str) -> Vec<String> {
    let split = reference
        .rsplit_once('*')
        .and_then(|(name, n)| Some((name, n.parse::<usize>().ok()?)));
    match split {
        Some((name, n)) => (0..n.min(MAX_PARTS))
            .map(|j| format!("{name}.{j}"))
            .collect(),
        None => vec![reference.to_owned()],
    }
}

/// `value` in pieces of at most [`ITEM_MAX_CHARS`] characters.
fn pieces(value: &str) -> Vec<String> {
    let chars: Vec<char> = value.chars().collect();
    if chars.is_empty() {
        return vec![String::new()];
    }
    chars
        .chunks(ITEM_MAX_CHARS)
        .map(|c| c.iter().collect())
        .collect()
}

fn delete_items(keyring: &Arc<Keyring>, items: &[String]) {
    for item in items {
        if let Ok(entry) = Entry::new_in_store(keyring, SERVICE, item) {
            match entry.delete_credential() {
                Ok(()) | Err(keyring_core::Error::NoEntry) => {}
                Err(e) => tracing::warn!(error = %e, "a keychain item could not be removed"),
            }
        }
    }
}

#[async_trait]
impl CredentialStore for KeychainStore {
    async fn get(&self, key: &StoreKey) -> Result<Option<(Record, Revision)>, StoreError> {
        for _ in 0..3 {
            let Some((mut record, revision)) = self.files.get(key).await? else {
                return Ok(None);
            };
            let items = items_of(&mut record);
            let found = self
                .blocking(move |keyring| {
                    let mut values = Vec::new();
                    for item in &items {
                        let entry = Entry::new_in_store(keyring, SERVICE, item)
                            .map_err(|e| keyring_error("an item", e))?;
                        match entry.get_password() {
                            Ok(v) => values.push((item.clone(), v)),
                            Err(keyring_core::Error::NoEntry) => return Ok(None),
                            Err(e) => return Err(keyring_error("an item", e)),
                        }
                    }
                    Ok(Some(values))
                })
                .await?;
            // An item gone: a write replaced the record meanwhile.
            let Some(values) = found else { continue };
            for secret in secrets_of(&mut record) {
                let Some(reference) = secret.expose().strip_prefix(MARK) else {
                    continue;
                };
                let mut whole = String::new();
                for item in parts(reference) {
                    if let Some((_, v)) = values.iter().find(|(i, _)| *i == item) {
                        whole.push_str(v);
                    }
                }
                *secret = Secret::new(whole);
            }
            return Ok(Some((record, revision)));
        }
        Err(StoreError::backend_message(format!(
            "the keychain items of {} are missing",
            self.files.path_of(key).display()
        )))
    }

    async fn put(
        &self,
        key: &StoreKey,
        mut record: Record,
        expected: Option<Revision>,
    ) -> Result<Revision, StoreError> {
        let nonce = format!("{:016x}", rand::random::<u64>());
        let mut writes = Vec::new();
        for (i, secret) in secrets_of(&mut record).into_iter().enumerate() {
            let item = format!("{}/{nonce}/{i}", key_name(key));
            let mut split = pieces(secret.expose());
            if split.len() > MAX_PARTS {
                return Err(StoreError::backend_message(format!(
                    "the OS keychain: a secret of more than {} characters is not stored",
                    MAX_PARTS * ITEM_MAX_CHARS
                )));
            }
            let reference = if split.len() == 1 {
                writes.push((item.clone(), split.remove(0)));
                item
            } else {
                let n = split.len();
                for (j, piece) in split.into_iter().enumerate() {
                    writes.push((format!("{item}.{j}"), piece));
                }
                format!("{item}*{n}")
            };
            *secret = Secret::new(format!("{MARK}{reference}"));
        }
        let new_items: Vec<String> = writes.iter().map(|(i, _)| i.clone()).collect();
        self.blocking(move |keyring| {
            for (item, value) in &writes {
                Entry::new_in_store(keyring, SERVICE, item)
                    .and_then(|e| e.set_password(value))
                    .map_err(|e| keyring_error("cannot store a secret", e))?;
            }
            Ok(())
        })
        .await?;
        let old = self.files.get(key).await.ok().flatten();
        match self.files.put(key, record, expected).await {
            Ok(revision) => {
                if let Some((mut old, _)) = old {
                    let items = items_of(&mut old);
                    self.blocking(move |k| {
                        delete_items(k, &items);
                        Ok(())
                    })
                    .await?;
                }
                Ok(revision)
            }
            Err(e) => {
                self.blocking(move |k| {
                    delete_items(k, &new_items);
                    Ok(())
                })
                .await?;
                Err(e)
            }
        }
    }

    async fn delete(&self, key: &StoreKey) -> Result<(), StoreError> {
        let old = self.files.get(key).await?;
        self.files.delete(key).await?;
        if let Some((mut old, _)) = old {
            let items = items_of(&mut old);
            self.blocking(move |k| {
                delete_items(k, &items);
                Ok(())
            })
            .await?;
        }
        Ok(())
    }

    async fn keys(&self) -> Result<Vec<StoreKey>, StoreError> {
        self.files.keys().await
    }

    async fn lock(&self, key: &StoreKey) -> Result<StoreLock, StoreError> {
        self.files.lock(key).await
    }

    fn describe(&self) -> String {
        format!(
            "the OS keychain ({KEYCHAIN_NAME}), records in {}",
            self.files.dir().display()
        )
    }
}

/// The record's file name, which names its keychain items too.
fn key_name(key: &StoreKey) -> String {
    crate::file_store::file_stem(key)
}
