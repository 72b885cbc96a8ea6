//! The wait for an accepted page: shown while the server has not reported its step complete,
//! with *Check again* and *Cancel*, and ended by the server's report as well as by the user.
//!
//! inquire's prompts block until a key ends them, and nothing else can end one; a wait must
//! also end when a notification arrives, so its menu is drawn here, on `crossterm` (inquire's own
//! back end): the keys are read with a timeout, and between two reads the wait looks at what the
//! server reported, whether the host still waits, and whether a request came to ask first.

use std::io::{self, Write};
use std::time::Duration;

use crossterm::event::{self, Event, KeyCode, KeyEventKind, KeyModifiers};
use crossterm::{cursor, queue, terminal};

use super::accepted::{Accepted, Page};
use super::screen::{Ended, discard_typeahead, fit, hanging, say, shown, width};

/// What ended a wait for the pages the user accepted ([`Terminal::wait`](super::Terminal::wait)).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Waited {
    /// The server reported the step on every page waited for complete
    /// (`notifications/elicitation/complete`); the terminal said so. Nothing was waiting is
    /// this too.
    Completed,
    /// The user chose *Check again*: retry the request that asked (call the tool again). The
    /// pages still wait: a retry that asks about one again is shown as asked again.
    CheckAgain,
    /// The user chose *Cancel* (or pressed Esc or Ctrl-C): give the request up. The pages are
    /// forgotten: a completion for one is no longer shown.
    Cancel,
    /// A request came for the terminal while it waited: it is asked first. Wait again after it,
    /// if a page still waits.
    GaveWay,
}

/// How often the wait looks at what the server reported, and whether the host still waits.
const TICK: Duration = Duration::from_millis(100);

/// The choices, in order: the first is where the cursor starts.
const CHOICES: [(&str, Waited); 2] = [
    ("Check again", Waited::CheckAgain),
    ("Cancel", Waited::Cancel),
];

/// Say, on the held terminal, each page the server reported complete since it was last said.
pub(super) fn announce(accepted: &Accepted) -> io::Result<()> {
    let completed = accepted.take_completed();
    if completed.is_empty() {
        return Ok(());
    }
    let mut rows = String::new();
    for page in &completed {
        rows.push_str("✓ The server reports the step on the page complete:\n");
        hanging(
            &mut rows,
            "  Host  ",
            "        ",
            &shown(&page.host, false),
            width(),
        );
    }
    say(rows.trim_end_matches('\n'))
}

/// Wait, on the held terminal, for the pages the user accepted whose step the server can report
/// complete: until it reports each, the user chooses, the host stops waiting (`wanted()` false:
/// [`Ended::Withdrawn`]), or `gave_way()` says another request is to be asked first.
pub(super) fn wait(
    accepted: &Accepted,
    wanted: &dyn Fn() -> bool,
    gave_way: &mut dyn FnMut() -> bool,
) -> Result<Waited, Ended> {
    announce(accepted)?;
    let mut pages = accepted.waiting();
    if pages.is_empty() {
        return Ok(Waited::Completed);
    }
    let mut rows = String::from("\n── Waiting for the page ──\n");
    for page in &pages {
        hanging(
            &mut rows,
            "  Host  ",
            "        ",
            &shown(&page.host, false),
            width(),
        );
    }
    rows.push_str("Finish there: the server says when the step is complete.\n");
    rows.push_str("Check again sends the request again; Cancel gives it up.");
    say(&rows)?;
    // A choice here sends a request again or gives it up: keys typed before it was drawn do
    // not make it.
    discard_typeahead()?;
    let mut menu = Menu::default();
    let waited = within_raw_mode(|| {
        menu.draw()?;
        loop {
            if !wanted() {
                return Err(Ended::Withdrawn);
            }
            if gave_way() {
                return Ok(Waited::GaveWay);
            }
            if pages.iter().any(|page| !accepted.still_waiting(page)) {
                menu.clear()?;
                outside_raw_mode(|| announce(accepted))?;
                pages.retain(|page| accepted.still_waiting(page));
                if pages.is_empty() {
                    return Ok(Waited::Completed);
                }
                menu.draw()?;
            }
            if !event::poll(TICK)? {
                continue;
            }
            let Event::Key(key) = event::read()? else {
                menu.redraw()?;
                continue;
            };
            if key.kind == KeyEventKind::Release {
                continue;
            }
            match key.code {
                KeyCode::Enter => return Ok(menu.chosen()),
                KeyCode::Esc => return Ok(Waited::Cancel),
                KeyCode::Char('c') if key.modifiers.contains(KeyModifiers::CONTROL) => {
                    return Ok(Waited::Cancel);
                }
                KeyCode::Up | KeyCode::BackTab | KeyCode::Char('k') => menu.move_by(-1)?,
                KeyCode::Down | KeyCode::Tab | KeyCode::Char('j') => menu.move_by(1)?,
                _ => {}
            }
        }
    });
    let cleared = menu.clear();
    let waited = waited?;
    cleared?;
    match waited {
        Waited::CheckAgain | Waited::Cancel => {
            let (chosen, then) = match waited {
                Waited::CheckAgain => ("Check again", "the request is sent again"),
                _ => ("Cancel", "the request is given up"),
            };
            say(&format!("? Waiting for the page… {chosen}: {then}."))?;
        }
        Waited::GaveWay => say("(Another request first: the wait goes on after it.)")?,
        Waited::Completed => {}
    }
    if waited == Waited::Cancel {
        for Page { server, url, .. } in &pages {
            accepted.forget(server, url);
        }
    }
    Ok(waited)
}

/// The choices, drawn below the rows already on the screen and redrawn in place: every row of
/// it this crate's own text, cut to fit its row, so that it never wraps and `rows` is how far
/// up to go to redraw it.
#[derive(Default)]
struct Menu {
    cursor: usize,
    rows: u16,
}

impl Menu {
    fn chosen(&self) -> Waited {
        CHOICES
            .get(self.cursor)
            .map_or(Waited::Cancel, |&(_, waited)| waited)
    }

    fn move_by(&mut self, step: isize) -> io::Result<()> {
        self.cursor = self
            .cursor
            .saturating_add_signed(step)
            .min(CHOICES.len() - 1);
        self.redraw()
    }

    fn draw(&mut self) -> io::Result<()> {
        let room = width().saturating_sub(1);
        let mut lines = vec!["? Waiting for the page…".to_owned()];
        for (at, (choice, _)) in CHOICES.iter().enumerate() {
            let pointer = if at == self.cursor { '>' } else { ' ' };
            lines.push(format!("{pointer} {choice}"));
        }
        lines.push("[↑↓ to move, enter to choose, esc cancels]".to_owned());
        let mut err = io::stderr().lock();
        queue!(err, cursor::Hide)?;
        for line in &lines {
            write!(err, "{}\r\n", fit(line, room))?;
        }
        err.flush()?;
        self.rows = u16::try_from(lines.len()).unwrap_or(u16::MAX);
        Ok(())
    }

    fn clear(&mut self) -> io::Result<()> {
        let mut err = io::stderr().lock();
        if self.rows > 0 {
            queue!(
                err,
                cursor::MoveUp(self.rows),
                cursor::MoveToColumn(0),
                terminal::Clear(terminal::ClearType::FromCursorDown)
            )?;
            self.rows = 0;
        }
        queue!(err, cursor::Show)?;
        err.flush()
    }

    fn redraw(&mut self) -> io::Result<()> {
        self.clear()?;
        self.draw()
    }
}

/// `run` in the terminal's raw mode (keys one at a time, not echoed), which is left as it was
/// found whatever `run` returns.
fn within_raw_mode<T>(run: impl FnOnce() -> Result<T, Ended>) -> Result<T, Ended> {
    let was_raw = terminal::is_raw_mode_enabled()?;
    if !was_raw {
        terminal::enable_raw_mode()?;
    }
    let ran = run();
    if !was_raw {
        terminal::disable_raw_mode()?;
    }
    ran
}

/// `run` out of raw mode, for rows written with line feeds alone.
fn outside_raw_mode(run: impl FnOnce() -> io::Result<()>) -> io::Result<()> {
    terminal::disable_raw_mode()?;
    let ran = run();
    terminal::enable_raw_mode()?;
    ran
}
