//! A login started from the explorer (a server that needs one): the
//! dialog that shows what the login says (the URL to open, or the code to
//! enter on another device), takes a pasted redirect URL, and says how it
//! ended; the keys inside it.

use super::*;

/// The login dialog.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct LoginDialog {
    pub server: String,
    /// With a code on another device (the device flow), not the browser.
    pub device: bool,
    /// What the login said, line by line (the URL, where it waits).
    pub lines: Vec<String>,
    /// A redirect URL (or code) being pasted.
    pub paste: String,
    /// `Ok` (who is logged in) or `Err` (why not) once it ended.
    pub outcome: Option<Result<String, String>>,
}

impl App {
    /// `L` (browser) or `D` (device) on the Servers pane: the selected
    /// server's login, when it needs one.
    pub(super) fn start_login(&mut self, device: bool) -> Vec<Action> {
        let at = self.selected_in(Pane::Servers);
        let Some(s) = self.servers.get(at) else {
            return Vec::new();
        };
        if !matches!(s.state, ServerState::NeedsLogin(_)) {
            self.notice = Some(format!("{} does not need a login", s.name));
            return Vec::new();
        }
        let server = s.name.clone();
        self.login = Some(LoginDialog {
            server: server.clone(),
            device,
            lines: Vec::new(),
            paste: String::new(),
            outcome: None,
        });
        vec![Action::Login { server, device }]
    }

    /// A key while the login dialog is open: text goes to the paste line,
    /// Enter sends it (or closes the dialog once the login ended), Esc
    /// stops the login and closes it.
    pub(super) fn login_key(&mut self, key: KeyEvent) -> Vec<Action> {
        let Some(dialog) = &mut self.login else {
            return Vec::new();
        };
        let ended = dialog.outcome.is_some();
        match key.code {
            KeyCode::Esc => {
                self.login = None;
                if !ended {
                    self.notice = Some("login stopped".into());
                    return vec![Action::CancelLogin];
                }
            }
            KeyCode::Enter if ended => self.login = None,
            KeyCode::Enter if !dialog.paste.trim().is_empty() && !dialog.device => {
                let text = std::mem::take(&mut dialog.paste);
                dialog.lines.push("(pasted; checking it)".into());
                return vec![Action::LoginPaste { text }];
            }
            KeyCode::Backspace => {
                dialog.paste.pop();
            }
            KeyCode::Char(c)
                if !ended && !dialog.device && !key.modifiers.contains(KeyModifiers::CONTROL) =>
            {
                dialog.paste.push(c);
            }
            _ => {}
        }
        Vec::new()
    }

    /// The login ended: said in the dialog; after a login every server is
    /// started again, so the one that needed it connects with it.
    pub(super) fn login_ended(&mut self, outcome: Result<String, String>) -> Vec<Action> {
        let ok = outcome.is_ok();
        if let Some(dialog) = &mut self.login {
            dialog.outcome = Some(outcome);
        } else {
            self.notice = Some(match &outcome {
                Ok(line) => line.clone(),
                Err(why) => why.clone(),
            });
        }
        if ok {
            return self.reconnect_all();
        }
        Vec::new()
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests_support::{demo_view, key, typed};
    use super::*;

    fn needs_login() -> App {
        let mut s = demo_view();
        s.name = "remote".into();
        s.info = None;
        s.state = ServerState::NeedsLogin("authorization needs login for https://x".into());
        App::new(vec![demo_view(), s])
    }

    #[test]
    fn l_starts_the_login_of_a_server_that_needs_one_and_a_paste_is_sent() {
        let mut app = needs_login();
        assert!(app.key(key(KeyCode::Char('L'))).is_empty());
        assert_eq!(app.notice.as_deref(), Some("demo does not need a login"));
        app.key(key(KeyCode::Down));
        assert_eq!(
            app.key(key(KeyCode::Char('L'))),
            vec![Action::Login {
                server: "remote".into(),
                device: false
            }]
        );
        app.apply(Event::LoginNotice("To log in, open this URL".into()));
        assert_eq!(
            app.login.as_ref().unwrap().lines,
            ["To log in, open this URL"]
        );
        // Keys go to the dialog: `q` is text there, not quit.
        typed(&mut app, "http://127.0.0.1:1/callback?code=q");
        assert!(!app.quit);
        assert_eq!(
            app.key(key(KeyCode::Enter)),
            vec![Action::LoginPaste {
                text: "http://127.0.0.1:1/callback?code=q".into()
            }]
        );
        // Logged in: every server starts again, the dialog says so.
        let actions = app.apply(Event::LoginEnded(Ok("Logged in to remote".into())));
        assert_eq!(actions, vec![Action::Reconnect]);
        assert_eq!(app.servers[1].state, ServerState::Starting);
        assert!(app.login.as_ref().unwrap().outcome.is_some());
        assert!(app.key(key(KeyCode::Enter)).is_empty());
        assert!(app.login.is_none());
    }

    #[test]
    fn esc_stops_a_login_and_a_failed_one_is_said() {
        let mut app = needs_login();
        app.key(key(KeyCode::Down));
        assert_eq!(
            app.key(key(KeyCode::Char('D'))),
            vec![Action::Login {
                server: "remote".into(),
                device: true
            }]
        );
        // A device login takes no paste.
        typed(&mut app, "abc");
        assert_eq!(app.login.as_ref().unwrap().paste, "");
        assert_eq!(app.key(key(KeyCode::Esc)), vec![Action::CancelLogin]);
        assert!(app.login.is_none());
        app.key(key(KeyCode::Char('L')));
        let actions = app.apply(Event::LoginEnded(Err("login to remote failed".into())));
        assert!(actions.is_empty());
        assert_eq!(
            app.login.as_ref().unwrap().outcome,
            Some(Err("login to remote failed".into()))
        );
        assert!(app.key(key(KeyCode::Esc)).is_empty());
        assert!(app.login.is_none());
    }
}
