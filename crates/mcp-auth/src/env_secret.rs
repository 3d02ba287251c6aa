//! A secret named by an environment variable, read when it is needed (a
//! file of its own: the secret type sits below the errors, which sit below
//! the credential store, and reading one of these needs both).

use crate::error::AuthError;
use crate::secret::Secret;

/// The secret `what` in the environment variable `variable`, read now.
///
/// Errors: `SecretUnavailable` when it is not set, empty or not Unicode.
pub(crate) fn from_env(what: &'static str, variable: &str) -> Result<Secret, AuthError> {
    let unavailable = |problem| AuthError::SecretUnavailable {
        what,
        variable: variable.to_owned(),
        problem,
    };
    match std::env::var(variable) {
        Ok(v) if v.is_empty() => Err(unavailable("is empty")),
        Ok(v) => Ok(Secret::new(v)),
        Err(std::env::VarError::NotPresent) => Err(unavailable("is not set")),
        Err(std::env::VarError::NotUnicode(_)) => Err(unavailable("is not valid Unicode")),
    }
}
