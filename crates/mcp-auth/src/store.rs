//! Where credentials live: the [`CredentialStore`] trait (compare-and-swap,
//! so two refreshes cannot lose a rotated refresh token, and a lock that
//! holds across processes, so that only one of them refreshes) and the
//! in-memory [`MemoryStore`]. Client registrations are keyed by the
//! authorization server's issuer (never reused with another); tokens by the
//! resource, the issuer that issued them and the account (never sent to
//! another resource; two accounts at one server are two records); DPoP key
//! pairs by the issuer they are used with.

use std::any::Any;
use std::collections::HashMap;
use std::fmt;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::SystemTime;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

use crate::secret::Secret;

/// The key of a stored record.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[non_exhaustive]
pub enum StoreKey {
    /// The client identity registered with (or configured for) an
    /// authorization server.
    Client {
        /// The authorization server's issuer, as its metadata says.
        issuer: String,
    },
    /// The tokens for one resource from one authorization server, for one
    /// account.
    Tokens {
        /// The resource (RFC 8707) the tokens are for.
        resource: String,
        /// The issuer that issued them.
        issuer: String,
        /// The account: a name the user chose to tell two logins at one
        /// server apart ([`DEFAULT_ACCOUNT`] unless they chose one).
        #[serde(default = "default_account")]
        account: String,
    },
    /// The DPoP key pair (RFC 9449) used with an authorization server: the
    /// tokens it binds stay usable across processes.
    DpopKey {
        /// The authorization server's issuer, as its metadata says.
        issuer: String,
    },
}

/// The account of tokens stored without one chosen: `"default"`.
pub const DEFAULT_ACCOUNT: &str = "default";

fn default_account() -> String {
    DEFAULT_ACCOUNT.to_owned()
}

impl StoreKey {
    /// The key of the tokens for `resource` from `issuer`, for `account`.
    pub fn tokens(
        resource: impl Into<String>,
        issuer: impl Into<String>,
        account: impl Into<String>,
    ) -> StoreKey {
        StoreKey::Tokens {
            resource: resource.into(),
            issuer: issuer.into(),
            account: account.into(),
        }
    }

    /// The key of the client identity at `issuer`.
    pub fn client(issuer: impl Into<String>) -> StoreKey {
        StoreKey::Client {
            issuer: issuer.into(),
        }
    }

    /// The key of the DPoP key pair used with `issuer`.
    pub fn dpop_key(issuer: impl Into<String>) -> StoreKey {
        StoreKey::DpopKey {
            issuer: issuer.into(),
        }
    }
}

/// A client identity at one authorization server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ClientRecord {
    /// The `client_id`.
    pub client_id: String,
    /// The `client_secret`, for a confidential client.
    pub client_secret: Option<Secret>,
    /// The token endpoint authentication method registered (`none`,
    /// `client_secret_basic`, `client_secret_post`), when known.
    pub token_endpoint_auth_method: Option<String>,
}

impl ClientRecord {
    /// A client `client_id` with an optional secret.
    pub fn new(client_id: impl Into<String>, client_secret: Option<Secret>) -> ClientRecord {
        ClientRecord {
            client_id: client_id.into(),
            client_secret,
            token_endpoint_auth_method: None,
        }
    }

    /// Sets the registered token endpoint authentication method.
    pub fn with_token_endpoint_auth_method(mut self, method: impl Into<String>) -> Self {
        self.token_endpoint_auth_method = Some(method.into());
        self
    }
}

/// Tokens for one resource from one authorization server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TokenRecord {
    /// The access token.
    pub access_token: Secret,
    /// The refresh token, if one was issued (kept when a refresh returns
    /// none).
    pub refresh_token: Option<Secret>,
    /// When the access token expires (absolute), if the server said.
    pub expires_at: Option<SystemTime>,
    /// When the token response arrived (with `expires_at`, the token's
    /// lifetime).
    pub received_at: Option<SystemTime>,
    /// The scopes granted (or requested, when the server did not say).
    pub scope: Option<String>,
    /// The scopes the next interactive login asks for (space-separated):
    /// what the last login asked for, plus what a server challenged for
    /// later (403 `insufficient_scope`) when no one could be asked then.
    #[serde(default)]
    pub wanted_scope: Option<String>,
    /// For a DPoP-bound access token (`token_type` `DPoP`, RFC 9449 § 5),
    /// the RFC 7638 thumbprint of the key it is bound to; `None` for a
    /// bearer token.
    #[serde(default)]
    pub dpop_jkt: Option<String>,
}

impl TokenRecord {
    /// A record of `access_token`, nothing else known.
    pub fn new(access_token: Secret) -> TokenRecord {
        TokenRecord {
            access_token,
            refresh_token: None,
            expires_at: None,
            received_at: None,
            scope: None,
            wanted_scope: None,
            dpop_jkt: None,
        }
    }
}

/// The stored key pair of one authorization server (see
/// [`StoreKey::DpopKey`]). Its `Debug` shows no
/// key material.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct DpopKeyRecord {
    /// The JWS algorithm, `ES256`.
    pub algorithm: String,
    /// The private key: PKCS#8 DER, base64url.
    pub private_key: Secret,
    /// When it was generated.
    #[serde(default)]
    pub created_at: Option<SystemTime>,
}

impl fmt::Debug for DpopKeyRecord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DpopKeyRecord")
            .field("algorithm", &self.algorithm)
            .field("private_key", &self.private_key)
            .field("created_at", &self.created_at)
            .finish()
    }
}

/// One stored record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub enum Record {
    /// A client identity.
    Client(ClientRecord),
    /// Tokens.
    Tokens(TokenRecord),
    /// A DPoP key pair.
    DpopKey(DpopKeyRecord),
}

/// The revision of a stored record, for compare-and-swap.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Revision(pub u64);

/// Why a store operation failed. `Display` describes this level; the
/// cause, when there is one, is `source()`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// The record changed since it was read (compare-and-swap failed).
    #[error("the record changed since it was read")]
    Conflict,
    /// The store itself failed: what it was doing (a path, never a
    /// secret); the underlying error (an I/O error, the keychain's) is the
    /// source. Built with [`StoreError::backend`] or
    /// [`StoreError::backend_message`].
    #[error("{what}")]
    #[non_exhaustive]
    Backend {
        /// What failed, e.g. "cannot read /home/u/.config/mcp/credentials/tokens-ab12.json".
        what: String,
        /// The cause, when there is one.
        #[source]
        source: Option<Box<dyn std::error::Error + Send + Sync>>,
    },
    /// A stored file cannot be read as a record. It is left as it is (never
    /// overwritten): move it away or delete it to log in again.
    #[error("credential file {} is unreadable ({problem}); it was left untouched: remove it to log in again", path.display())]
    #[non_exhaustive]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What is wrong with it (no secret: never its content).
        problem: String,
    },
}

impl StoreError {
    /// [`StoreError::Backend`]: `what` failed because of `source` (reported
    /// by `source()`, not in the text). For
    /// [`CredentialStore`] implementations outside this crate too.
    pub fn backend(
        what: impl Into<String>,
        source: impl Into<Box<dyn std::error::Error + Send + Sync>>,
    ) -> StoreError {
        StoreError::Backend {
            what: what.into(),
            source: Some(source.into()),
        }
    }

    /// [`StoreError::Backend`] with no underlying error: `what` says it
    /// all.
    pub fn backend_message(what: impl Into<String>) -> StoreError {
        StoreError::Backend {
            what: what.into(),
            source: None,
        }
    }
}

/// A lock on one key that holds across processes while it lives (a
/// refresh runs under it, so ten processes refresh once). Dropping it
/// releases the lock.
pub struct StoreLock {
    _held: Option<Box<dyn Any + Send + Sync>>,
}

impl StoreLock {
    /// A lock that holds nothing: for a store that lives in one process
    /// (the flow's own mutex is then enough).
    pub fn none() -> StoreLock {
        StoreLock { _held: None }
    }

    /// A lock that holds while `guard` lives.
    pub fn holding(guard: impl Any + Send + Sync) -> StoreLock {
        StoreLock {
            _held: Some(Box::new(guard)),
        }
    }
}

impl fmt::Debug for StoreLock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StoreLock")
            .field("held", &self._held.is_some())
            .finish()
    }
}

/// A credential store. Implementations must keep secrets out of their
/// `Debug` output and logs.
#[async_trait]
pub trait CredentialStore: Send + Sync + fmt::Debug {
    /// The record at `key` and its revision, if any.
    async fn get(&self, key: &StoreKey) -> Result<Option<(Record, Revision)>, StoreError>;

    /// Stores `record` at `key` when its current revision is `expected`
    /// (`None`: when there is no record). Returns the new revision.
    ///
    /// Errors: [`StoreError::Conflict`] when the record changed meanwhile.
    async fn put(
        &self,
        key: &StoreKey,
        record: Record,
        expected: Option<Revision>,
    ) -> Result<Revision, StoreError>;

    /// Removes the record at `key`, if any.
    async fn delete(&self, key: &StoreKey) -> Result<(), StoreError>;

    /// Every key with a record. A record that cannot be read is left out
    /// (and logged); [`get`](Self::get) of its key reports it.
    async fn keys(&self) -> Result<Vec<StoreKey>, StoreError>;

    /// Takes the lock of `key` across processes, waiting for it. The flow
    /// holds it while it refreshes, then reads the record again: another
    /// process that refreshed meanwhile is seen, not repeated. The default
    /// holds nothing (a store of one process).
    ///
    /// Errors: [`StoreError::Backend`] when the lock cannot be taken.
    async fn lock(&self, key: &StoreKey) -> Result<StoreLock, StoreError> {
        let _ = key;
        Ok(StoreLock::none())
    }

    /// Where the records live, for people (`"memory"`, a directory): no
    /// secret.
    fn describe(&self) -> String;
}

/// The records of a [`MemoryStore`] and the last revision handed out.
#[derive(Default)]
struct Records {
    last: u64,
    map: HashMap<StoreKey, (Record, Revision)>,
}

/// A store in memory, for one process: the default.
#[derive(Default)]
pub struct MemoryStore {
    records: Mutex<Records>,
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> MemoryStore {
        MemoryStore::default()
    }
}

impl fmt::Debug for MemoryStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let records = self.records.lock().unwrap_or_else(|p| p.into_inner());
        let keys: Vec<&StoreKey> = records.map.keys().collect();
        f.debug_struct("MemoryStore").field("keys", &keys).finish()
    }
}

#[async_trait]
impl CredentialStore for MemoryStore {
    async fn get(&self, key: &StoreKey) -> Result<Option<(Record, Revision)>, StoreError> {
        let records = self.records.lock().unwrap_or_else(|p| p.into_inner());
        Ok(records.map.get(key).cloned())
    }

    async fn put(
        &self,
        key: &StoreKey,
        record: Record,
        expected: Option<Revision>,
    ) -> Result<Revision, StoreError> {
        let mut records = self.records.lock().unwrap_or_else(|p| p.into_inner());
        let current = records.map.get(key).map(|(_, r)| *r);
        if current != expected {
            return Err(StoreError::Conflict);
        }
        records.last += 1;
        let revision = Revision(records.last);
        records.map.insert(key.clone(), (record, revision));
        Ok(revision)
    }

    async fn delete(&self, key: &StoreKey) -> Result<(), StoreError> {
        let mut records = self.records.lock().unwrap_or_else(|p| p.into_inner());
        records.map.remove(key);
        Ok(())
    }

    async fn keys(&self) -> Result<Vec<StoreKey>, StoreError> {
        let records = self.records.lock().unwrap_or_else(|p| p.into_inner());
        Ok(records.map.keys().cloned().collect())
    }

    fn describe(&self) -> String {
        "memory (this process only)".into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(access: &str) -> Record {
        let mut t = TokenRecord::new(Secret::new(access));
        t.refresh_token = Some(Secret::new("refresh-secret"));
        Record::Tokens(t)
    }

    #[tokio::test]
    async fn compare_and_swap_refuses_a_stale_writer() {
        let store = MemoryStore::new();
        let key = StoreKey::tokens("https://r/mcp", "https://as", DEFAULT_ACCOUNT);
        assert!(store.get(&key).await.unwrap().is_none());
        let r1 = store.put(&key, tokens("a"), None).await.unwrap();
        assert!(matches!(
            store.put(&key, tokens("b"), None).await,
            Err(StoreError::Conflict)
        ));
        let r2 = store.put(&key, tokens("b"), Some(r1)).await.unwrap();
        assert!(matches!(
            store.put(&key, tokens("c"), Some(r1)).await,
            Err(StoreError::Conflict)
        ));
        let (record, rev) = store.get(&key).await.unwrap().unwrap();
        assert_eq!(rev, r2);
        assert_eq!(record, tokens("b"));
        store.delete(&key).await.unwrap();
        assert!(store.get(&key).await.unwrap().is_none());
    }

    #[tokio::test]
    async fn debug_shows_no_secret() {
        let store = MemoryStore::new();
        let key = StoreKey::Client {
            issuer: "https://as".into(),
        };
        let client = ClientRecord::new("id", Some(Secret::new("client-secret-value")));
        store.put(&key, Record::Client(client), None).await.unwrap();
        store
            .put(
                &StoreKey::tokens("r", "i", "a"),
                tokens("access-secret"),
                None,
            )
            .await
            .unwrap();
        let shown = format!("{store:?} {:?}", store.get(&key).await.unwrap());
        for secret in ["client-secret-value", "access-secret", "refresh-secret"] {
            assert!(!shown.contains(secret), "{shown}");
        }
    }
}
