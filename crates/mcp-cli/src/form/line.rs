//! The form's text prompt: one line of input with the usual line-editing
//! keys of a shell, drawn in `inquire`'s look.
//!
//! `inquire`'s own text prompt types every `Ctrl-<letter>` it has no action
//! for as the letter (Ctrl-U gives `u`), and has no hook to change that, so
//! text fields are asked here. [`LineEditor`] is the editing, free of the
//! terminal; [`ask`] draws it and reads the keys.
//!
//! Keys: Ctrl-U deletes the line before the cursor, Ctrl-W the word before
//! it, Ctrl-K the line after it; Ctrl-A / Home and Ctrl-E / End move to the
//! start and end, Ctrl-B / Ctrl-F / arrows by a character, Ctrl-arrows and
//! Alt-B / Alt-F by a word; Backspace / Ctrl-H and Delete delete a
//! character. Enter answers, Esc (Ctrl-G, Ctrl-D) cancels the form, Ctrl-C
//! stops the command, as in `inquire`'s other prompts. Any other control
//! character is ignored, never inserted.

use std::io::{self, Write};

use crossterm::event::{Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use crossterm::style::Stylize;
use crossterm::{cursor, queue, terminal};

use super::{FormError, Stop};

/// What a key did to the line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Outcome {
    /// The line changed, or the cursor moved, or nothing happened.
    Edited,
    /// Enter: the line is the answer.
    Submit,
    /// Esc: the form is cancelled.
    Cancel,
    /// Ctrl-C: the command is to stop.
    Interrupt,
}

/// One line of text and a cursor in it (an index into its characters).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(super) struct LineEditor {
    text: Vec<char>,
    cursor: usize,
}

impl LineEditor {
    /// The line.
    pub(super) fn text(&self) -> String {
        self.text.iter().collect()
    }

    /// The cursor, in characters from the start.
    pub(super) fn cursor(&self) -> usize {
        self.cursor
    }

    /// Applies `key`.
    pub(super) fn key(&mut self, key: KeyEvent) -> Outcome {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let alt = key.modifiers.contains(KeyModifiers::ALT);
        match key.code {
            KeyCode::Enter => return Outcome::Submit,
            KeyCode::Esc => return Outcome::Cancel,
            KeyCode::Char(c) if ctrl => match c.to_ascii_lowercase() {
                'c' => return Outcome::Interrupt,
                'd' | 'g' => return Outcome::Cancel,
                'j' | 'm' => return Outcome::Submit,
                'u' => {
                    self.text.drain(..self.cursor);
                    self.cursor = 0;
                }
                'w' => {
                    let start = self.word_start();
                    self.text.drain(start..self.cursor);
                    self.cursor = start;
                }
                'k' => self.text.truncate(self.cursor),
                'a' => self.cursor = 0,
                'e' => self.cursor = self.text.len(),
                'b' => self.cursor = self.cursor.saturating_sub(1),
                'f' => self.cursor = (self.cursor + 1).min(self.text.len()),
                'h' => self.backspace(),
                _ => {}
            },
            KeyCode::Char('b') if alt => self.cursor = self.word_start(),
            KeyCode::Char('f') if alt => self.cursor = self.word_end(),
            KeyCode::Char(c) if !c.is_control() && !alt => {
                self.text.insert(self.cursor, c);
                self.cursor += 1;
            }
            KeyCode::Backspace => self.backspace(),
            KeyCode::Delete if self.cursor < self.text.len() => {
                self.text.remove(self.cursor);
            }
            KeyCode::Left if ctrl => self.cursor = self.word_start(),
            KeyCode::Right if ctrl => self.cursor = self.word_end(),
            KeyCode::Left => self.cursor = self.cursor.saturating_sub(1),
            KeyCode::Right => self.cursor = (self.cursor + 1).min(self.text.len()),
            KeyCode::Home => self.cursor = 0,
            KeyCode::End => self.cursor = self.text.len(),
            _ => {}
        }
        Outcome::Edited
    }

    fn backspace(&mut self) {
        if self.cursor > 0 {
            self.cursor -= 1;
            self.text.remove(self.cursor);
        }
    }

    /// Where the word before the cursor starts: back over white space, then
    /// over the rest (a shell's Ctrl-W).
    fn word_start(&self) -> usize {
        let mut at = self.cursor;
        while at > 0 && self.text[at - 1].is_whitespace() {
            at -= 1;
        }
        while at > 0 && !self.text[at - 1].is_whitespace() {
            at -= 1;
        }
        at
    }

    /// Where the word after the cursor ends.
    fn word_end(&self) -> usize {
        let mut at = self.cursor;
        while at < self.text.len() && self.text[at].is_whitespace() {
            at += 1;
        }
        while at < self.text.len() && !self.text[at].is_whitespace() {
            at += 1;
        }
        at
    }
}

/// A text prompt: what [`ask`] shows.
pub(super) struct TextPrompt<'a> {
    /// The field's label.
    pub label: &'a str,
    /// Shown dimmed while the line is empty.
    pub placeholder: Option<&'a str>,
    /// Shown under the line, in brackets.
    pub help: Option<&'a str>,
    /// `Err(why)` keeps the prompt open, showing why.
    pub check: &'a dyn Fn(&str) -> Result<(), String>,
    /// The answered line's text for an answer.
    pub shown: &'a dyn Fn(&str) -> String,
}

/// Asks `prompt` on the terminal (drawn on stderr, keys read in raw mode,
/// the mode given back after); the accepted line.
///
/// Errors: [`Stop::Cancel`] for Esc, [`FormError::Interrupted`] for Ctrl-C,
/// [`FormError::Io`] when the terminal fails.
pub(super) fn ask(prompt: &TextPrompt<'_>) -> Result<String, Stop> {
    let io = |e: io::Error| Stop::Fail(FormError::Io(e));
    terminal::enable_raw_mode().map_err(io)?;
    let result = read_line(prompt);
    let restored = terminal::disable_raw_mode();
    let line = result?;
    restored.map_err(io)?;
    Ok(line)
}

fn read_line(prompt: &TextPrompt<'_>) -> Result<String, Stop> {
    let io = |e: io::Error| Stop::Fail(FormError::Io(e));
    let color = std::env::var_os("NO_COLOR").is_none();
    let mut err = io::stderr();
    let mut editor = LineEditor::default();
    let mut why: Option<String> = None;
    let mut up = draw(&mut err, prompt, &editor, why.as_deref(), color, 0).map_err(io)?;
    loop {
        let Event::Key(key) = crossterm::event::read().map_err(io)? else {
            continue;
        };
        if key.kind == KeyEventKind::Release {
            continue;
        }
        match editor.key(key) {
            Outcome::Edited => why = None,
            Outcome::Cancel => {
                finish(&mut err, prompt.label, "<canceled>", color, up).map_err(io)?;
                return Err(Stop::Cancel);
            }
            Outcome::Interrupt => {
                finish(&mut err, prompt.label, "<interrupted>", color, up).map_err(io)?;
                return Err(Stop::Fail(FormError::Interrupted));
            }
            Outcome::Submit => {
                let line = editor.text();
                match (prompt.check)(&line) {
                    Ok(()) => {
                        finish(&mut err, prompt.label, &(prompt.shown)(&line), color, up)
                            .map_err(io)?;
                        return Ok(line);
                    }
                    Err(e) => why = Some(e),
                }
            }
        }
        up = draw(&mut err, prompt, &editor, why.as_deref(), color, up).map_err(io)?;
    }
}

/// Screen rows a line of `len` characters takes on a terminal `columns`
/// wide (at least one).
fn rows(len: usize, columns: usize) -> usize {
    len.div_ceil(columns.max(1)).max(1)
}

/// Draws the prompt over the one drawn before, whose first line is `up`
/// rows above the cursor; leaves the cursor at the editor's cursor and
/// returns how many rows below the prompt's first line that is (a long
/// answer wraps).
fn draw(
    err: &mut impl Write,
    prompt: &TextPrompt<'_>,
    editor: &LineEditor,
    why: Option<&str>,
    color: bool,
    up: u16,
) -> io::Result<u16> {
    let columns = terminal::size().map_or(80, |(c, _)| usize::from(c));
    queue!(err, cursor::MoveToColumn(0))?;
    if up > 0 {
        queue!(err, cursor::MoveUp(up))?;
    }
    queue!(err, terminal::Clear(terminal::ClearType::FromCursorDown))?;
    let head = format!("? {} ", prompt.label);
    let text = editor.text();
    if color {
        write!(err, "{} {} ", "?".green(), prompt.label.bold())?;
    } else {
        write!(err, "{head}")?;
    }
    let shown = match (text.is_empty(), prompt.placeholder) {
        (true, Some(p)) => {
            if color {
                write!(err, "{}", p.dark_grey())?;
            } else {
                write!(err, "{p}")?;
            }
            p.chars().count()
        }
        _ => {
            write!(err, "{text}")?;
            text.chars().count()
        }
    };
    let head_len = head.chars().count();
    // The row the drawing ends on, counted from the prompt's first.
    let mut last = rows(head_len + shown, columns) - 1;
    let below = why
        .map(|w| (format!("! {w}"), true))
        .into_iter()
        .chain(prompt.help.map(|h| (format!("[{h}]"), false)));
    for (line, is_error) in below {
        match (color, is_error) {
            (true, true) => write!(err, "\r\n{}", line.as_str().red())?,
            (true, false) => write!(err, "\r\n{}", line.as_str().cyan())?,
            (false, _) => write!(err, "\r\n{line}")?,
        }
        last += rows(line.chars().count(), columns);
    }
    let at = head_len + editor.cursor();
    let row = at / columns.max(1);
    if last > row {
        queue!(
            err,
            cursor::MoveUp(u16::try_from(last - row).unwrap_or(u16::MAX))
        )?;
    }
    queue!(
        err,
        cursor::MoveToColumn(u16::try_from(at % columns.max(1)).unwrap_or(u16::MAX))
    )?;
    err.flush()?;
    Ok(u16::try_from(row).unwrap_or(u16::MAX))
}

/// Replaces the prompt (its first line `up` rows above the cursor) with its
/// answered line, `> label shown`.
fn finish(err: &mut impl Write, label: &str, shown: &str, color: bool, up: u16) -> io::Result<()> {
    queue!(err, cursor::MoveToColumn(0))?;
    if up > 0 {
        queue!(err, cursor::MoveUp(up))?;
    }
    queue!(err, terminal::Clear(terminal::ClearType::FromCursorDown))?;
    if color {
        write!(err, "{} {} {}\r\n", ">".green(), label, shown.cyan())?;
    } else {
        write!(err, "> {label} {shown}\r\n")?;
    }
    err.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn typed(keys: &[KeyEvent]) -> LineEditor {
        let mut e = LineEditor::default();
        for k in keys {
            assert_eq!(e.key(*k), Outcome::Edited, "{k:?}");
        }
        e
    }

    fn chars(s: &str) -> Vec<KeyEvent> {
        s.chars()
            .map(|c| KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE))
            .collect()
    }

    fn ctrl(c: char) -> KeyEvent {
        KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL)
    }

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    #[test]
    fn ctrl_u_clears_before_the_cursor_and_ctrl_w_a_word() {
        let mut keys = chars("abc");
        keys.push(ctrl('u'));
        keys.push(ctrl('w'));
        assert_eq!(typed(&keys).text(), "");

        let mut keys = chars("one two  ");
        keys.push(ctrl('w'));
        assert_eq!(typed(&keys).text(), "one ");

        let mut keys = chars("hello world");
        keys.extend([key(KeyCode::Left); 5]);
        keys.push(ctrl('u'));
        let e = typed(&keys);
        assert_eq!((e.text().as_str(), e.cursor()), ("world", 0));

        let mut keys = chars("ab cd");
        keys.extend([key(KeyCode::Left); 2]);
        keys.push(ctrl('w'));
        let e = typed(&keys);
        // The white space before the cursor goes with the word, as in a shell.
        assert_eq!((e.text().as_str(), e.cursor()), ("cd", 0));
        let mut keys = chars("ab cd");
        keys.extend([ctrl('a'), ctrl('k')]);
        assert_eq!(typed(&keys).text(), "");
    }

    #[test]
    fn other_control_characters_are_never_inserted() {
        let mut keys = chars("x");
        for c in ['l', 'o', 'q', 'r', 's', 't', 'v', 'x', 'y', 'z', 'p', 'n'] {
            keys.push(ctrl(c));
        }
        keys.extend([
            key(KeyCode::Char('\u{7}')),
            key(KeyCode::Char('\u{1b}')),
            key(KeyCode::Tab),
            KeyEvent::new(KeyCode::Char('x'), KeyModifiers::ALT),
        ]);
        keys.extend(chars("y"));
        assert_eq!(typed(&keys).text(), "xy");
    }

    #[test]
    fn the_cursor_keys_edit_in_place() {
        let mut keys = chars("ac");
        keys.push(key(KeyCode::Left));
        keys.extend(chars("b"));
        keys.extend([key(KeyCode::Home), key(KeyCode::Delete), key(KeyCode::End)]);
        keys.push(key(KeyCode::Backspace));
        keys.extend(chars("é"));
        let e = typed(&keys);
        assert_eq!((e.text().as_str(), e.cursor()), ("bé", 2));
    }

    /// A long answer wraps: the redraw starts from the prompt's first row,
    /// not from the row the cursor is on.
    #[test]
    fn a_wrapped_line_is_redrawn_from_its_first_row() {
        assert_eq!(rows(0, 80), 1);
        assert_eq!(rows(80, 80), 1);
        assert_eq!(rows(81, 80), 2);
        let check = |_: &str| Ok(());
        let shown = |s: &str| s.to_owned();
        let prompt = TextPrompt {
            label: "L",
            placeholder: None,
            help: Some("help"),
            check: &check,
            shown: &shown,
        };
        let editor = typed(&chars(&"x".repeat(200)));
        let columns = terminal::size().map_or(80, |(c, _)| usize::from(c));
        let mut out = Vec::new();
        let up = draw(&mut out, &prompt, &editor, None, false, 0).unwrap_or(0);
        assert_eq!(usize::from(up), ("? L ".len() + 200) / columns);
        assert!(String::from_utf8_lossy(&out).contains("[help]"));
    }

    #[test]
    fn enter_escape_and_ctrl_c_end_the_prompt() {
        let mut e = LineEditor::default();
        assert_eq!(e.key(key(KeyCode::Enter)), Outcome::Submit);
        assert_eq!(e.key(key(KeyCode::Esc)), Outcome::Cancel);
        assert_eq!(e.key(ctrl('c')), Outcome::Interrupt);
        assert_eq!(e.key(ctrl('d')), Outcome::Cancel);
    }
}
