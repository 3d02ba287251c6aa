//! [`Credentials`]: the transport's side of the auth hook (`auth.rs`), the
//! one place a request gets its credentials and a refusal (401/403) is
//! answered. It owns what that takes: the provider, the headers the
//! provider asked to keep ([`AuthDecision::RetryWith`]), and every secret
//! value the connection sent, so that what a server echoes back is hidden
//! before it is shown.
//!
//! For each hop of an exchange, [`Credentials::for_hop`] says what the hop
//! carries ([`Attached`]): on a hop to the server's origin, the kept
//! headers and the credential [`AuthProvider::prepare`] returned; on a hop
//! that a redirect sent to another origin, nothing (`Authorization` and
//! every header the hook gave are taken off; the cookie jar keeps its own
//! cookies to its origin). [`Credentials::on_refusal`] hands a 401/403 to
//! [`AuthProvider::on_unauthorized`], at most [`MAX_AUTH_RETRIES`] times per
//! exchange, and keeps what it answers. [`Credentials::observe`] shows the
//! provider every reply to a hop it prepared (before a refusal is answered).

use std::sync::{Arc, Mutex};

use http::header::{AUTHORIZATION, SET_COOKIE, WWW_AUTHENTICATE};
use http::{HeaderMap, HeaderName, Method, Response, StatusCode, Uri};
use mcp_transport::TransportError;

use crate::auth::{
    AuthChallenge, AuthDecision, AuthProvider, Credential, IncomingResponse, MAX_AUTH_RETRIES,
    OutgoingRequest,
};
use crate::lock::lock;
use crate::media::header_text;
use crate::redact::{SentSecrets, redact_url};
use crate::wire_rules::MCP_AUTH_SERVER;

/// The credentials of one connection: the auth provider (if any), the
/// headers it asked to keep, and the secrets the connection sent.
pub(crate) struct Credentials {
    provider: Option<Arc<dyn AuthProvider>>,
    /// The headers the provider returned with [`AuthDecision::RetryWith`],
    /// sent on every later hop to the server's origin.
    kept: Mutex<HeaderMap>,
    /// Every secret value the connection sent (sensitive configured
    /// headers, the hook's credentials). Shared with the dispatcher's
    /// redactor.
    secrets: Arc<Mutex<SentSecrets>>,
    label: String,
}

impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Credentials")
            .field("provider", &self.provider.is_some())
            .field("kept", &lock(&self.kept).len())
            .finish()
    }
}

/// What one hop carries of the connection's credentials.
///
/// The two parts go on at two depths, as they always have: the kept
/// headers over the configured ones (the transport's own headers then
/// replace them), the prepared credential over everything (the provider
/// has the last word on what it attached).
#[derive(Debug, Default)]
pub(crate) struct Attached {
    /// The kept headers, values sensitive (none on a cross-origin hop).
    kept: HeaderMap,
    /// The names taken off a cross-origin hop.
    taken_off: Vec<HeaderName>,
    /// The provider's credential for this hop, values sensitive.
    prepared: Option<Credential>,
}

impl Attached {
    /// The generation of the prepared credential, reported back to the
    /// provider when the hop is refused.
    pub(crate) fn generation(&self) -> Option<u64> {
        self.prepared.as_ref().and_then(|c| c.generation)
    }

    /// Puts the kept headers on `headers` (the configured ones), replacing
    /// those of the same name; on a hop to another origin takes
    /// `Authorization` and every name the hook gave off instead.
    pub(crate) fn put_kept(&self, headers: &mut HeaderMap) {
        for (name, value) in self.kept.iter() {
            headers.insert(name.clone(), value.clone());
        }
        for name in &self.taken_off {
            headers.remove(name);
        }
    }

    /// Puts the prepared credential on `headers` (the request as built),
    /// replacing every header of the same name.
    pub(crate) fn put_prepared(&self, headers: &mut HeaderMap) {
        let Some(credential) = &self.prepared else {
            return;
        };
        for name in credential.headers.keys() {
            headers.remove(name);
        }
        for (name, value) in credential.headers.iter() {
            headers.append(name.clone(), value.clone());
        }
    }
}

/// The hop a refusal answered, as the provider is told about it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Refused<'a> {
    /// The URL the refused hop went to.
    pub(crate) target: &'a Uri,
    /// Its HTTP method.
    pub(crate) method: &'a Method,
    /// The JSON-RPC method of the request, if any.
    pub(crate) rpc_method: Option<&'a str>,
    /// The generation of the credential it carried.
    pub(crate) sent: Option<u64>,
}

/// What the exchange does with a reply after [`Credentials::on_refusal`].
#[derive(Debug)]
pub(crate) enum Refusal<B> {
    /// Not the auth hook's business (not a 401/403, no provider, or the
    /// exchange asked the provider [`MAX_AUTH_RETRIES`] times already): the
    /// reply stands.
    NotHandled(Response<B>),
    /// The provider asked for the request to be sent again.
    Retry,
    /// The provider gave up: the exchange fails with this.
    Fail(TransportError),
}

impl Credentials {
    /// The credentials of a connection whose configured headers' secrets
    /// are `secrets`, asking `provider` (if any); `label` names the
    /// connection in logs.
    pub(crate) fn new(
        provider: Option<Arc<dyn AuthProvider>>,
        secrets: SentSecrets,
        label: &str,
    ) -> Credentials {
        Credentials {
            provider,
            kept: Mutex::new(HeaderMap::new()),
            secrets: Arc::new(Mutex::new(secrets)),
            label: label.to_owned(),
        }
    }

    /// The secrets the connection sent, for the dispatcher's redactor.
    pub(crate) fn secrets(&self) -> Arc<Mutex<SentSecrets>> {
        self.secrets.clone()
    }

    /// `text` with every secret value the connection sent hidden: what a
    /// server sends back (an error body, a challenge) may echo one.
    pub(crate) fn scrub(&self, text: &str) -> String {
        lock(&self.secrets).scrub(text).into_owned()
    }

    /// Remembers the values of `headers`, about to be sent, as secrets.
    fn remember(&self, headers: &HeaderMap) {
        let mut secrets = lock(&self.secrets);
        for value in headers.values() {
            secrets.remember(value);
        }
    }

    /// What the hop `request` carries: with `with_credentials` (the hop
    /// goes to the server's origin, as every hop before it did), the kept
    /// headers and the credential the provider prepares for it; without,
    /// nothing, and the provider is not asked.
    ///
    /// Errors: [`TransportError::Auth`] when the provider refuses (nothing
    /// is sent then).
    pub(crate) async fn for_hop(
        &self,
        request: &OutgoingRequest<'_>,
        with_credentials: bool,
    ) -> Result<Attached, TransportError> {
        let kept = lock(&self.kept).clone();
        if !with_credentials {
            let mut taken_off = vec![AUTHORIZATION];
            taken_off.extend(kept.keys().cloned());
            return Ok(Attached {
                taken_off,
                ..Attached::default()
            });
        }
        let Some(provider) = self.provider.as_ref() else {
            return Ok(Attached {
                kept,
                ..Attached::default()
            });
        };
        let prepared = match provider.prepare(request).await {
            Ok(Some(mut credential)) => {
                self.remember(&credential.headers);
                for value in credential.headers.values_mut() {
                    value.set_sensitive(true);
                }
                Some(credential)
            }
            Ok(None) => None,
            Err(failure) => {
                let url = redact_url(&request.url.to_string());
                tracing::debug!(connection = %self.label, kind = %failure.kind, "the auth hook refused to prepare the request");
                return Err(failure.into_error(url, |t| self.scrub(t)));
            }
        };
        Ok(Attached {
            kept,
            taken_off: Vec::new(),
            prepared,
        })
    }

    /// Shows the provider (if any) the reply of `status` and `headers` to
    /// a hop of `method` to `target` that it prepared.
    pub(crate) fn observe(
        &self,
        method: &Method,
        target: &Uri,
        status: StatusCode,
        headers: &HeaderMap,
    ) {
        if let Some(provider) = &self.provider {
            provider.observe(&IncomingResponse {
                method,
                url: target,
                status: status.as_u16(),
                headers,
            });
        }
    }

    /// The auth hook's answer to `response`, the reply to the hop
    /// `refused`. A 401 or 403, when a provider is configured and fewer than
    /// [`MAX_AUTH_RETRIES`] answers were given in this exchange (`attempt`,
    /// counted up here), goes to [`AuthProvider::on_unauthorized`]; the
    /// response is dropped before the provider is awaited (a login may take
    /// minutes: the connection is not held meanwhile).
    pub(crate) async fn on_refusal<B>(
        &self,
        response: Response<B>,
        refused: Refused<'_>,
        attempt: &mut u32,
    ) -> Refusal<B> {
        let status = response.status();
        if !matches!(status, StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN) {
            return Refusal::NotHandled(response);
        }
        let Some(provider) = self.provider.clone() else {
            return Refusal::NotHandled(response);
        };
        if *attempt >= MAX_AUTH_RETRIES {
            tracing::debug!(connection = %self.label, status = status.as_u16(), attempts = *attempt, "refused again after the auth hook's last retry; reporting the refusal");
            return Refusal::NotHandled(response);
        }
        let mut headers = response.headers().clone();
        if let http::header::Entry::Occupied(mut cookies) = headers.entry(SET_COOKIE) {
            for value in cookies.iter_mut() {
                value.set_sensitive(true);
            }
        }
        let challenge = AuthChallenge {
            status: status.as_u16(),
            www_authenticate: header_text(&headers, WWW_AUTHENTICATE.as_str()),
            auth_server: header_text(&headers, MCP_AUTH_SERVER),
            url: redact_url(&refused.target.to_string()),
            headers,
            sent_credential: refused.sent,
            attempt: *attempt,
            method: refused.method.clone(),
            rpc_method: refused.rpc_method.map(str::to_owned),
        };
        drop(response);
        *attempt += 1;
        match provider.on_unauthorized(&challenge).await {
            AuthDecision::Retry => Refusal::Retry,
            AuthDecision::RetryWith(extra) => {
                self.remember(&extra);
                let mut kept = lock(&self.kept);
                for name in extra.keys() {
                    kept.remove(name);
                }
                for (name, value) in extra.iter() {
                    let mut value = value.clone();
                    value.set_sensitive(true);
                    kept.append(name.clone(), value);
                }
                drop(kept);
                Refusal::Retry
            }
            AuthDecision::Fail(failure) => {
                tracing::debug!(connection = %self.label, status = challenge.status, kind = %failure.kind, "the auth hook gave up on a refusal");
                Refusal::Fail(failure.into_error(challenge.url, |t| self.scrub(t)))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use async_trait::async_trait;
    use http::HeaderValue;
    use mcp_transport::AuthErrorKind;

    use crate::auth::AuthFailure;

    /// A provider that attaches `Bearer tok-secret-<n>` (generation `n`,
    /// counted up by every `Retry`), or refuses to when `refuse`, and
    /// answers refusals with `decision`.
    #[derive(Debug)]
    struct Scripted {
        refuse: bool,
        decision: fn() -> AuthDecision,
        generation: Mutex<u64>,
        asked: Mutex<Vec<AuthChallenge>>,
        prepared: Mutex<u32>,
    }

    fn scripted(refuse: bool, decision: fn() -> AuthDecision) -> Arc<Scripted> {
        Arc::new(Scripted {
            refuse,
            decision,
            generation: Mutex::new(0),
            asked: Mutex::new(Vec::new()),
            prepared: Mutex::new(0),
        })
    }

    #[async_trait]
    impl AuthProvider for Scripted {
        async fn prepare(
            &self,
            _request: &OutgoingRequest<'_>,
        ) -> Result<Option<Credential>, AuthFailure> {
            *self.prepared.lock().unwrap() += 1;
            if self.refuse {
                return Err(AuthFailure::needs_login("no token for tok-secret-0"));
            }
            let generation = *self.generation.lock().unwrap();
            let mut headers = HeaderMap::new();
            headers.insert(
                AUTHORIZATION,
                HeaderValue::try_from(format!("Bearer tok-secret-{generation}")).unwrap(),
            );
            Ok(Some(Credential::new(headers).with_generation(generation)))
        }

        async fn on_unauthorized(&self, challenge: &AuthChallenge) -> AuthDecision {
            self.asked.lock().unwrap().push(challenge.clone());
            let decision = (self.decision)();
            if matches!(decision, AuthDecision::Retry) {
                *self.generation.lock().unwrap() += 1;
            }
            decision
        }
    }

    fn credentials(provider: Option<Arc<Scripted>>) -> Credentials {
        let mut secrets = SentSecrets::default();
        secrets.remember_fixed(&HeaderValue::from_static("Bearer configured"));
        Credentials::new(
            provider.map(|p| p as Arc<dyn AuthProvider>),
            secrets,
            "test",
        )
    }

    fn uri(s: &str) -> Uri {
        s.parse().unwrap()
    }

    /// The headers a hop ends up with: the configured ones, the attached
    /// parts at their depths, and one header the transport sets between
    /// them (`accept`, which a kept header of that name does not replace).
    fn hop_headers(attached: &Attached) -> Vec<(String, String)> {
        let mut headers = HeaderMap::new();
        headers.insert(AUTHORIZATION, HeaderValue::from_static("Bearer configured"));
        headers.insert("x-configured", HeaderValue::from_static("c"));
        headers.insert("x-kept", HeaderValue::from_static("configured"));
        attached.put_kept(&mut headers);
        headers.insert("accept", HeaderValue::from_static("transport"));
        attached.put_prepared(&mut headers);
        let mut all: Vec<(String, String)> = headers
            .iter()
            .map(|(n, v)| (n.to_string(), v.to_str().unwrap().to_owned()))
            .collect();
        all.sort();
        all
    }

    fn outgoing<'a>(method: &'a Method, url: &'a Uri) -> OutgoingRequest<'a> {
        OutgoingRequest {
            method,
            url,
            body: b"",
            rpc_method: Some("tools/call"),
            attempt: 0,
        }
    }

    /// A reply of `status` with a challenge, a hint and a cookie.
    fn refusal(status: u16) -> Response<()> {
        Response::builder()
            .status(status)
            .header(WWW_AUTHENTICATE, "Bearer scope=\"a\"")
            .header(MCP_AUTH_SERVER, "https://as.example")
            .header(SET_COOKIE, "lb=sticky")
            .body(())
            .unwrap()
    }

    fn retry_with() -> AuthDecision {
        let mut headers = HeaderMap::new();
        headers.insert("x-kept", HeaderValue::from_static("kept-secret-value"));
        headers.insert("accept", HeaderValue::from_static("kept-accept"));
        AuthDecision::RetryWith(headers)
    }

    fn fail() -> AuthDecision {
        AuthDecision::Fail(AuthFailure::denied("denied: Bearer configured was refused"))
    }

    fn pair(name: &str, value: &str) -> (String, String) {
        (name.to_owned(), value.to_owned())
    }

    /// What a hop carries, by provider, kept headers and origin.
    #[tokio::test]
    async fn what_a_hop_carries() {
        let method = Method::POST;
        let url = uri("http://h.example/mcp?token=q");
        // (why, provider, a RetryWith answered before, to the origin,
        // headers of the hop, generation)
        type Case = (
            &'static str,
            Option<Arc<Scripted>>,
            bool,
            bool,
            Vec<(String, String)>,
            Option<u64>,
        );
        let configured = vec![
            pair("accept", "transport"),
            pair("authorization", "Bearer configured"),
            pair("x-configured", "c"),
            pair("x-kept", "configured"),
        ];
        let cases: Vec<Case> = vec![
            ("no provider", None, false, true, configured.clone(), None),
            (
                "no provider, another origin: Authorization taken off",
                None,
                false,
                false,
                vec![
                    pair("accept", "transport"),
                    pair("x-configured", "c"),
                    pair("x-kept", "configured"),
                ],
                None,
            ),
            (
                "the prepared credential replaces the configured one",
                Some(scripted(false, || AuthDecision::Retry)),
                false,
                true,
                vec![
                    pair("accept", "transport"),
                    pair("authorization", "Bearer tok-secret-0"),
                    pair("x-configured", "c"),
                    pair("x-kept", "configured"),
                ],
                Some(0),
            ),
            (
                "kept headers go over the configured ones, under the transport's",
                Some(scripted(false, retry_with)),
                true,
                true,
                vec![
                    pair("accept", "transport"),
                    pair("authorization", "Bearer tok-secret-0"),
                    pair("x-configured", "c"),
                    pair("x-kept", "kept-secret-value"),
                ],
                Some(0),
            ),
            (
                "another origin: no credential, the kept names taken off",
                Some(scripted(false, retry_with)),
                true,
                false,
                vec![pair("accept", "transport"), pair("x-configured", "c")],
                None,
            ),
        ];
        for (why, provider, answered_before, to_origin, want, generation) in cases {
            let c = credentials(provider.clone());
            if answered_before {
                let mut attempt = 0;
                let refused = Refused {
                    target: &url,
                    method: &method,
                    rpc_method: None,
                    sent: None,
                };
                let answer = c.on_refusal(refusal(401), refused, &mut attempt).await;
                assert!(matches!(answer, Refusal::Retry), "{why}");
            }
            let attached = c
                .for_hop(&outgoing(&method, &url), to_origin)
                .await
                .unwrap();
            assert_eq!(hop_headers(&attached), want, "{why}");
            assert_eq!(attached.generation(), generation, "{why}");
            if let Some(p) = provider {
                assert_eq!(
                    *p.prepared.lock().unwrap(),
                    u32::from(to_origin),
                    "{why}: asked only for a hop to the origin"
                );
            }
            let mut all = HeaderMap::new();
            attached.put_kept(&mut all);
            attached.put_prepared(&mut all);
            assert!(all.values().all(HeaderValue::is_sensitive), "{why}");
        }
    }

    /// A credential that was sent is a secret of the connection from then
    /// on; a provider's refusal fails the hop, its reason scrubbed.
    #[tokio::test]
    async fn prepared_credentials_are_remembered_and_refusals_typed() {
        let method = Method::GET;
        let url = uri("http://h.example/mcp?token=q");
        let c = credentials(Some(scripted(false, || AuthDecision::Retry)));
        assert_eq!(c.scrub("echo tok-secret-0"), "echo tok-secret-0");
        c.for_hop(&outgoing(&method, &url), true).await.unwrap();
        assert_eq!(c.scrub("echo tok-secret-0"), "echo ***");
        assert_eq!(c.scrub("echo Bearer configured"), "echo ***");

        let c = credentials(Some(scripted(true, || AuthDecision::Retry)));
        lock(&c.secrets).remember(&HeaderValue::from_static("tok-secret-0"));
        match c.for_hop(&outgoing(&method, &url), true).await {
            Err(TransportError::Auth {
                kind, url, reason, ..
            }) => {
                assert_eq!(kind, AuthErrorKind::NeedsLogin);
                assert_eq!(url, "http://h.example/mcp?token=***");
                assert_eq!(reason, "no token for ***");
            }
            other => panic!("{other:?}"),
        }
    }

    /// What a reply leads to, by status, provider, answer and the answers
    /// given so far in the exchange.
    #[tokio::test]
    async fn how_a_refusal_is_answered() {
        #[derive(Debug, PartialEq)]
        enum Outcome {
            Stands,
            Retry,
            Fails(AuthErrorKind),
        }
        // (status, provider's answer (None: no provider), answers so far,
        // outcome, answers after)
        type Case = (u16, Option<fn() -> AuthDecision>, u32, Outcome, u32);
        let retry: fn() -> AuthDecision = || AuthDecision::Retry;
        let cases: &[Case] = &[
            (200, Some(retry), 0, Outcome::Stands, 0),
            (302, Some(retry), 0, Outcome::Stands, 0),
            (404, Some(retry), 0, Outcome::Stands, 0),
            (500, Some(retry), 0, Outcome::Stands, 0),
            (401, None, 0, Outcome::Stands, 0),
            (403, None, 0, Outcome::Stands, 0),
            (401, Some(retry), 0, Outcome::Retry, 1),
            (403, Some(retry), 2, Outcome::Retry, 3),
            (401, Some(retry_with), 0, Outcome::Retry, 1),
            (401, Some(fail), 1, Outcome::Fails(AuthErrorKind::Denied), 2),
            (
                401,
                Some(retry),
                MAX_AUTH_RETRIES - 1,
                Outcome::Retry,
                MAX_AUTH_RETRIES,
            ),
            (
                401,
                Some(retry),
                MAX_AUTH_RETRIES,
                Outcome::Stands,
                MAX_AUTH_RETRIES,
            ),
        ];
        let method = Method::POST;
        let target = uri("http://h.example/mcp?token=q");
        for (status, decision, before, want, after) in cases {
            let provider = decision.map(|d| scripted(false, d));
            let c = credentials(provider.clone());
            let mut attempt = *before;
            let refused = Refused {
                target: &target,
                method: &method,
                rpc_method: Some("tools/call"),
                sent: Some(7),
            };
            let got = match c.on_refusal(refusal(*status), refused, &mut attempt).await {
                Refusal::NotHandled(response) => {
                    assert_eq!(response.status(), *status);
                    Outcome::Stands
                }
                Refusal::Retry => Outcome::Retry,
                Refusal::Fail(e) => {
                    assert_eq!(
                        e.to_string(),
                        "authorization denied for http://h.example/mcp?token=***: denied: *** was refused"
                    );
                    Outcome::Fails(e.auth_kind().unwrap())
                }
            };
            let case = format!("{status} {before} {want:?}");
            assert_eq!(got, *want, "{case}");
            assert_eq!(attempt, *after, "{case}");
            let asked = provider.map_or(0, |p| p.asked.lock().unwrap().len());
            assert_eq!(asked, (*after - *before) as usize, "{case}: provider asked");
        }
    }

    /// The challenge carries what the provider decides on; cookie values
    /// in it are marked sensitive; kept headers are secrets from then on.
    #[tokio::test]
    async fn the_challenge_and_kept_headers() {
        let provider = scripted(false, retry_with);
        let c = credentials(Some(provider.clone()));
        let method = Method::POST;
        let target = uri("http://h.example/mcp?token=q");
        let mut attempt = 1;
        let refused = Refused {
            target: &target,
            method: &method,
            rpc_method: Some("tools/call"),
            sent: Some(7),
        };
        let answer = c.on_refusal(refusal(403), refused, &mut attempt).await;
        assert!(matches!(answer, Refusal::Retry));
        let challenge = provider.asked.lock().unwrap().remove(0);
        assert_eq!(challenge.status, 403);
        assert_eq!(
            challenge.www_authenticate.as_deref(),
            Some("Bearer scope=\"a\"")
        );
        assert_eq!(challenge.auth_server.as_deref(), Some("https://as.example"));
        assert_eq!(challenge.url, "http://h.example/mcp?token=***");
        assert_eq!(challenge.sent_credential, Some(7));
        assert_eq!(challenge.attempt, 1);
        assert_eq!(challenge.method, Method::POST);
        assert_eq!(challenge.rpc_method.as_deref(), Some("tools/call"));
        assert!(challenge.headers[SET_COOKIE].is_sensitive());
        assert!(lock(&c.kept).values().all(HeaderValue::is_sensitive));
        assert_eq!(c.scrub("echo kept-secret-value"), "echo ***");
    }
}
