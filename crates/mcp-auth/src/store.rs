//! Where credentials live: the [`CredentialStore`] trait (compare-and-swap,
//! so two refreshes cannot lose a rotated refresh token) and the in-memory
//! [`MemoryStore`]. Client registrations are keyed by the authorization
//! server's issuer (never reused with another); tokens by the resource and
//! the issuer that issued them (never sent to another resource).

use std::collections::HashMap;
use std::fmt;
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
    /// The tokens for one resource from one authorization server.
    Tokens {
        /// The resource (RFC 8707) the tokens are for.
        resource: String,
        /// The issuer that issued them.
        issuer: String,
    },
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
}

/// One stored record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub enum Record {
    /// A client identity.
    Client(ClientRecord),
    /// Tokens.
    Tokens(TokenRecord),
}

/// The revision of a stored record, for compare-and-swap.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Revision(pub u64);

/// Why a store operation failed.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// The record changed since it was read (compare-and-swap failed).
    #[error("the record changed since it was read")]
    Conflict,
    /// The store itself failed.
    #[error("credential store failed: {0}")]
    Backend(String),
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
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(access: &str) -> Record {
        Record::Tokens(TokenRecord {
            access_token: Secret::new(access),
            refresh_token: Some(Secret::new("refresh-secret")),
            expires_at: None,
            received_at: None,
            scope: None,
        })
    }

    #[tokio::test]
    async fn compare_and_swap_refuses_a_stale_writer() {
        let store = MemoryStore::new();
        let key = StoreKey::Tokens {
            resource: "https://r/mcp".into(),
            issuer: "https://as".into(),
        };
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
                &StoreKey::Tokens {
                    resource: "r".into(),
                    issuer: "i".into(),
                },
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
