//! `KeychainStore` against the session's Secret Service: a record's
//! secrets go to the keychain and never into its file; compare-and-swap,
//! listing and deletion behave as the file store's. Skipped, saying so,
//! where no Secret Service answers (containers, desktops without one);
//! `cargo xtask test` runs it under `.ci/with-secret-service`, a private
//! D-Bus session with an unlocked gnome-keyring.
#![cfg(target_os = "linux")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test code: an unexpected value fails the test loudly"
)]

use mcp_auth::{
    CredentialStore, FileStore, KeychainStore, Record, Secret, StoreError, StoreKey, TokenRecord,
};

#[tokio::test]
async fn secrets_in_the_keychain_records_in_files() {
    let dir = mcp_tests::temp_dir("keychain");
    let files = FileStore::new(&dir).unwrap();
    let store = match KeychainStore::new(files.clone()).await {
        Ok(s) => s,
        Err(e) => {
            // `.ci/with-secret-service` (from `cargo xtask test`) provides one: there, a
            // keychain that does not answer is a failure, not a skip.
            assert!(
                std::env::var_os("MCP_KEYCHAIN_REQUIRED").is_none_or(|v| v != "1"),
                "MCP_KEYCHAIN_REQUIRED=1 but no OS keychain answers: {e}"
            );
            eprintln!("skipped: no OS keychain here ({e})");
            let _ = std::fs::remove_dir_all(&dir);
            return;
        }
    };
    let key = StoreKey::tokens("https://r.example/mcp", "https://as.example", "default");
    let mut t = TokenRecord::new(Secret::new("keychain-access-secret"));
    t.refresh_token = Some(Secret::new("keychain-refresh-secret"));
    let r1 = store
        .put(&key, Record::Tokens(t.clone()), None)
        .await
        .unwrap();
    let file = std::fs::read_to_string(files.path_of(&key)).unwrap();
    assert!(!file.contains("keychain-access-secret"), "{file}");
    assert!(!file.contains("keychain-refresh-secret"), "{file}");
    let (got, rev) = store.get(&key).await.unwrap().unwrap();
    assert_eq!((got, rev), (Record::Tokens(t.clone()), r1));
    assert!(matches!(
        store.put(&key, Record::Tokens(t.clone()), None).await,
        Err(StoreError::Conflict)
    ));
    assert_eq!(store.keys().await.unwrap(), vec![key.clone()]);
    // A secret longer than one item holds (Windows' blob limit) is split
    // over several items and read back whole.
    let long = format!("long-access-secret-{}", "x".repeat(3000));
    let mut t2 = TokenRecord::new(Secret::new(long.clone()));
    t2.refresh_token = Some(Secret::new("keychain-refresh-secret-2"));
    let r2 = store
        .put(&key, Record::Tokens(t2.clone()), Some(r1))
        .await
        .unwrap();
    let file = std::fs::read_to_string(files.path_of(&key)).unwrap();
    assert!(!file.contains("long-access-secret"), "{file}");
    assert!(file.contains("*3"), "three items: {file}");
    let (got, rev) = store.get(&key).await.unwrap().unwrap();
    assert_eq!((got, rev), (Record::Tokens(t2), r2));
    store.delete(&key).await.unwrap();
    assert!(store.get(&key).await.unwrap().is_none());
    let _ = std::fs::remove_dir_all(&dir);
}
