//! [`AssertionSource`]: where the client gets an assertion it presents
//! but does not make (RFC 7521 § 4.1): the ID token of enterprise-managed
//! authorization, the workload JWT of workload identity federation. The
//! application supplies it; bundled are a file ([`FileAssertion`], re-read
//! each time, as platforms rotate projected tokens), an environment
//! variable ([`EnvAssertion`]) and a callback ([`CallbackAssertion`]).

use std::fmt;
use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::Arc;

use async_trait::async_trait;

use crate::error::{AssertionProblem, AuthError};
use crate::secret::Secret;

/// A source of an assertion (a JWT) the client presents: asked each time
/// a token is needed, so a source that rotates is followed.
///
/// [`assertion`](Self::assertion) returns the value as a [`Secret`];
/// [`origin`](Self::origin) describes the source for errors and logs
/// (a path, a variable name), never the value.
#[async_trait]
pub trait AssertionSource: Send + Sync + fmt::Debug {
    /// The current assertion.
    ///
    /// Errors: [`AssertionProblem::Unavailable`] (the source has none) or
    /// [`AssertionProblem::Empty`], in [`AuthError::Assertion`]; `what`
    /// names the assertion ("ID token", "workload JWT").
    async fn assertion(&self, what: &'static str) -> Result<Secret, AuthError>;

    /// Where the assertion comes from, in words (for errors).
    fn origin(&self) -> String;
}

fn unavailable(what: &'static str, origin: String, why: impl Into<String>) -> AuthError {
    AuthError::Assertion {
        what,
        origin,
        problem: AssertionProblem::Unavailable(why.into()),
    }
}

/// The value, trimmed of surrounding whitespace (a file's final newline);
/// an empty one is an error.
fn non_empty(value: &str, what: &'static str, origin: String) -> Result<Secret, AuthError> {
    let value = value.trim();
    if value.is_empty() {
        return Err(AuthError::Assertion {
            what,
            origin,
            problem: AssertionProblem::Empty,
        });
    }
    Ok(Secret::new(value))
}

/// The assertion in a file, read on every use (a Kubernetes projected
/// service account token, say, which the platform rewrites).
#[derive(Debug, Clone)]
pub struct FileAssertion {
    path: PathBuf,
}

impl FileAssertion {
    /// The file at `path`.
    pub fn new(path: impl Into<PathBuf>) -> FileAssertion {
        FileAssertion { path: path.into() }
    }
}

#[async_trait]
impl AssertionSource for FileAssertion {
    async fn assertion(&self, what: &'static str) -> Result<Secret, AuthError> {
        let text = std::fs::read_to_string(&self.path)
            .map_err(|e| unavailable(what, self.origin(), e.kind().to_string()))?;
        non_empty(&text, what, self.origin())
    }

    fn origin(&self) -> String {
        format!("file {}", self.path.display())
    }
}

/// The assertion in an environment variable, read on every use.
#[derive(Debug, Clone)]
pub struct EnvAssertion {
    var: String,
}

impl EnvAssertion {
    /// The variable `var`.
    pub fn new(var: impl Into<String>) -> EnvAssertion {
        EnvAssertion { var: var.into() }
    }
}

#[async_trait]
impl AssertionSource for EnvAssertion {
    async fn assertion(&self, what: &'static str) -> Result<Secret, AuthError> {
        let value = std::env::var(&self.var)
            .map_err(|_| unavailable(what, self.origin(), "the variable is not set"))?;
        non_empty(&value, what, self.origin())
    }

    fn origin(&self) -> String {
        format!("environment variable {}", self.var)
    }
}

type Produce =
    dyn Fn() -> Pin<Box<dyn Future<Output = Result<Secret, String>> + Send>> + Send + Sync;

/// The assertion from the application's own code (a metadata service, a
/// vault, a login it did itself). The callback's error text is shown in
/// the error: it must not hold a secret.
#[derive(Clone)]
pub struct CallbackAssertion {
    name: String,
    produce: Arc<Produce>,
}

impl fmt::Debug for CallbackAssertion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CallbackAssertion")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

impl CallbackAssertion {
    /// A source that calls `produce` each time; `name` describes it in
    /// errors.
    pub fn new<F, Fut>(name: impl Into<String>, produce: F) -> CallbackAssertion
    where
        F: Fn() -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Secret, String>> + Send + 'static,
    {
        CallbackAssertion {
            name: name.into(),
            produce: Arc::new(move || Box::pin(produce())),
        }
    }
}

#[async_trait]
impl AssertionSource for CallbackAssertion {
    async fn assertion(&self, what: &'static str) -> Result<Secret, AuthError> {
        let value = (self.produce)()
            .await
            .map_err(|why| unavailable(what, self.origin(), why))?;
        non_empty(value.expose(), what, self.origin())
    }

    fn origin(&self) -> String {
        format!("callback {}", self.name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn each_source_reads_fresh_and_names_itself_in_errors() {
        let dir = std::env::temp_dir().join(format!("mcp-auth-assert-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("token");
        std::fs::write(&path, "a.b.c\n").unwrap();
        let file = FileAssertion::new(&path);
        assert_eq!(
            file.assertion("workload JWT").await.unwrap().expose(),
            "a.b.c"
        );
        std::fs::write(&path, "d.e.f").unwrap();
        assert_eq!(
            file.assertion("workload JWT").await.unwrap().expose(),
            "d.e.f"
        );
        std::fs::write(&path, "  \n").unwrap();
        let e = file.assertion("workload JWT").await.unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("workload JWT from file {}: empty", path.display())
        );
        std::fs::remove_dir_all(&dir).unwrap();
        let e = file.assertion("workload JWT").await.unwrap_err();
        assert!(e.to_string().contains("unavailable"), "{e}");

        let env = EnvAssertion::new("MCP_AUTH_TEST_SURELY_UNSET_VARIABLE");
        let e = env.assertion("ID token").await.unwrap_err();
        assert_eq!(
            e.to_string(),
            "ID token from environment variable MCP_AUTH_TEST_SURELY_UNSET_VARIABLE: unavailable: the variable is not set"
        );

        let cb = CallbackAssertion::new("vault", || async { Ok(Secret::new("x.y.z")) });
        assert_eq!(cb.assertion("ID token").await.unwrap().expose(), "x.y.z");
        let cb = CallbackAssertion::new("vault", || async { Err("sealed".to_owned()) });
        let e = cb.assertion("ID token").await.unwrap_err();
        assert_eq!(
            e.to_string(),
            "ID token from callback vault: unavailable: sealed"
        );
    }
}
