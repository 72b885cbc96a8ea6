//! The terminal answerer in a real pseudo-terminal: `answer_in_terminal` runs on the slave side
//! of a pty, these tests type on the master side (keys as a terminal sends them) and read what
//! it draws, and each ends on the `ElicitResult` it printed. The last section drives
//! `terminal_client` (a host that asks in the terminal) the same way, through the same `Screen`.
#![cfg(unix)]

use std::path::PathBuf;
use std::process::Command;

use rexpect::reader::Options;
use rexpect::session::{PtySession, spawn_with_options};
use serde_json::{Value, json};

const ENTER: &str = "\r";
const DOWN: &str = "\x1b[B";
const UP: &str = "\x1b[A";
const SPACE: &str = " ";
const ESC: &str = "\x1b";
const BACKSPACE: &str = "\x7f";

/// A terminal answering `params` from `server` on `revision`.
struct Screen {
    session: PtySession,
    /// Everything drawn up to the last text seen, escape codes stripped.
    drawn: String,
}

impl Screen {
    fn answering(server: &str, revision: &str, params: &Value) -> Self {
        let params = params.to_string();
        let program = env!("CARGO_BIN_EXE_answer_in_terminal");
        Self::running(program, &[server, revision, &params])
    }

    /// `program` with `args`, in a pty of 40 rows and 120 columns.
    fn running(program: &str, args: &[&str]) -> Self {
        // A pty starts with no size; a terminal window has one.
        let mut command = Command::new("sh");
        command
            .args(["-c", "stty rows 40 cols 120 && exec \"$@\"", "sh", program])
            .args(args);
        let options = Options::new()
            .timeout_ms(Some(20_000))
            .strip_ansi_escape_codes(true);
        let session = spawn_with_options(command, options).expect("the pty starts");
        Self {
            session,
            drawn: String::new(),
        }
    }

    fn form(params: Value) -> Self {
        Self::answering("Bistro", "2025-11-25", &params)
    }

    /// Wait until `text` is drawn.
    fn sees(&mut self, text: &str) -> &mut Self {
        // rexpect reads the terminal a byte at a time, each byte a `char`: so is the needle.
        let needle: String = text.bytes().map(char::from).collect();
        match self.session.exp_string(&needle) {
            Ok(before) => {
                self.drawn.push_str(&before);
                self.drawn.push_str(&needle);
            }
            Err(error) => panic!("the terminal never showed {text:?}: {error}"),
        }
        self
    }

    /// Type `keys`, as a terminal sends them.
    fn types(&mut self, keys: &str) -> &mut Self {
        self.session.send(keys).expect("the pty takes keys");
        self.session.flush().expect("the pty takes keys");
        self
    }

    /// Press Esc alone: a terminal sends the byte by itself, which is how it differs from the
    /// start of an arrow key.
    fn escape(&mut self) -> &mut Self {
        std::thread::sleep(std::time::Duration::from_millis(50));
        self.types(ESC)
    }

    /// The line drawn after `text`, up to its end, without its gutter (`│ `: what the server
    /// wrote, `quoted`).
    fn line_after(&mut self, text: &str) -> String {
        self.sees(text);
        let (_, line) = self.session.exp_regex(r"[^\r\n]+").expect("a line follows");
        let gutter: String = "│ ".bytes().map(char::from).collect();
        line.strip_prefix(&gutter)
            .map_or(line.clone(), str::to_owned)
    }

    /// The `ElicitResult` it sent.
    fn sent(&mut self) -> Value {
        let (_, line) = self
            .session
            .exp_regex(r"sent: [^\r\n]*")
            .expect("it prints what it sent");
        serde_json::from_str(line.trim_start_matches("sent: ")).expect("what it sent is JSON")
    }
}

fn booking() -> Value {
    json!({
        "mode": "form",
        "message": "Book a table.",
        "requestedSchema": {
            "type": "object",
            "properties": {
                "party_size": {"type": "integer", "title": "Party size", "minimum": 1, "maximum": 12},
                "date": {"type": "string", "title": "Date", "format": "date"},
                "ratio": {"type": "number", "title": "Deposit share", "minimum": 0, "maximum": 1},
                "vip": {"type": "boolean", "title": "VIP"},
                "seating": {
                    "type": "string",
                    "title": "Seating",
                    "oneOf": [
                        {"const": "indoors", "title": "Indoors"},
                        {"const": "terrace", "title": "On the terrace"}
                    ]
                },
                "extras": {
                    "type": "array",
                    "title": "Extras",
                    "items": {"anyOf": [
                        {"const": "chair", "title": "High chair"},
                        {"const": "cake", "title": "Cake"},
                        {"const": "candles", "title": "Candles"}
                    ]},
                    "minItems": 1,
                    "maxItems": 2
                },
                "note": {"type": "string", "title": "Note", "maxLength": 20}
            },
            "required": ["party_size", "date", "ratio", "vip", "seating", "extras"]
        }
    })
}

#[test]
fn every_field_kind_is_asked_reviewed_and_sent() {
    let mut screen = Screen::form(booking());
    screen
        .sees("── A server asks you to fill in a form ──")
        .sees("│ From: Bistro")
        .sees("│ Book a table.")
        .sees("Answer this form?")
        .types(ENTER)
        .sees("a whole number from 1 to 12")
        .types("4")
        .types(ENTER)
        .sees("a date like 2026-07-28")
        .types("2026-12-24")
        .types(ENTER)
        .sees("a number from 0 to 1")
        .types("0.5")
        .types(ENTER)
        .sees("? VIP")
        .sees("> No")
        .types(ENTER)
        .sees("On the terrace")
        .types(DOWN)
        .types(ENTER)
        .sees("choose 1 to 2")
        .types(SPACE)
        .types(DOWN)
        .types(DOWN)
        .types(SPACE)
        .types(ENTER)
        .sees("at most 20 characters")
        .types(ENTER)
        .sees("Your answers:")
        .sees("On the terrace")
        .sees("High chair, Candles")
        .sees("(empty)")
        .sees("Send these answers?")
        .types(ENTER);
    assert_eq!(
        screen.sent(),
        json!({"action": "accept", "content": {
            "party_size": 4, "date": "2026-12-24", "ratio": 0.5, "vip": false,
            "seating": "terrace", "extras": ["chair", "candles"]
        }})
    );
}

fn one_field(property: Value, required: bool) -> Value {
    json!({
        "mode": "form",
        "message": "One question.",
        "requestedSchema": {
            "type": "object",
            "properties": {"answer": property},
            "required": if required { json!(["answer"]) } else { json!([]) }
        }
    })
}

#[test]
fn an_invalid_value_is_refused_in_words_and_fixed_in_place() {
    let replicas = json!({"type": "integer", "title": "Replicas", "minimum": 1, "maximum": 10});
    let mut screen = Screen::form(one_field(replicas, true));
    screen
        .sees("Answer this form?")
        .types(ENTER)
        .sees("Replicas")
        .types("11")
        .types(ENTER)
        .sees("Replicas must be at most 10")
        .types(BACKSPACE)
        .types(BACKSPACE)
        .types("two")
        .types(ENTER)
        .sees("Replicas must be a whole number")
        .types(&BACKSPACE.repeat(3))
        .types("3")
        .types(ENTER)
        .sees("Send these answers?")
        .types(ENTER);
    assert_eq!(
        screen.sent(),
        json!({"action": "accept", "content": {"answer": 3}})
    );
}

#[test]
fn a_required_field_left_empty_is_refused() {
    let name = json!({"type": "string", "title": "Name", "minLength": 2});
    let mut screen = Screen::form(one_field(name, true));
    screen
        .sees("Answer this form?")
        .types(ENTER)
        .sees("Name")
        .types(ENTER)
        .sees("Name is required")
        .types("x")
        .types(ENTER)
        .sees("Name must be at least 2 characters long")
        .types("y")
        .types(ENTER)
        .sees("Send these answers?")
        .types(ENTER);
    assert_eq!(
        screen.sent(),
        json!({"action": "accept", "content": {"answer": "xy"}})
    );
}

#[test]
fn defaults_are_filled_in_and_sent_as_they_are() {
    let params = json!({
        "mode": "form",
        "message": "Deploy.",
        "requestedSchema": {
            "type": "object",
            "properties": {
                "env": {"type": "string", "enum": ["staging", "production"], "default": "staging"},
                "replicas": {"type": "integer", "default": 2},
                "tag": {"type": "string", "default": "latest"},
                "notify": {"type": "boolean", "default": true},
                "regions": {"type": "array", "items": {"type": "string", "enum": ["eu", "us"]},
                            "default": ["us"]}
            },
            "required": ["env"]
        }
    });
    let mut screen = Screen::form(params);
    screen.sees("Answer this form?").types(ENTER);
    for field in ["env", "replicas", "tag", "notify", "regions"] {
        screen.sees(&format!("? {field}")).types(ENTER);
    }
    screen.sees("Send these answers?").types(ENTER);
    assert_eq!(
        screen.sent(),
        json!({"action": "accept", "content": {
            "env": "staging", "replicas": 2, "tag": "latest", "notify": true, "regions": ["us"]
        }})
    );
}

/// A default is shown as a default, not put in as text to edit (as inquire's own `with_default`
/// does): what is typed replaces it, `40` and not `240` (refused: at most 50), `v2` and not
/// `latestv2`.
#[test]
fn what_is_typed_into_a_field_with_a_default_replaces_it() {
    let params = json!({
        "mode": "form",
        "message": "Deploy.",
        "requestedSchema": {
            "type": "object",
            "properties": {
                "replicas": {"type": "integer", "title": "Replicas", "minimum": 1, "maximum": 50,
                             "default": 2},
                "tag": {"type": "string", "title": "Tag", "default": "latest"}
            },
            "required": ["replicas", "tag"]
        }
    });
    let mut screen = Screen::form(params);
    screen
        .sees("Answer this form?")
        .types(ENTER)
        .sees("Replicas (2)")
        .types("40")
        .types(ENTER)
        .sees("Tag (latest)")
        .types("v2")
        .types(ENTER)
        .sees("Send these answers?")
        .types(ENTER);
    assert_eq!(
        screen.sent(),
        json!({"action": "accept", "content": {"replicas": 40, "tag": "v2"}})
    );
}

/// Enter with nothing typed on a field with a default sends the default.
#[test]
fn enter_on_a_number_field_with_a_default_sends_the_default() {
    let replicas = json!({"type": "integer", "title": "Replicas", "minimum": 1, "maximum": 50,
                          "default": 2});
    let mut screen = Screen::form(one_field(replicas, true));
    screen
        .sees("Answer this form?")
        .types(ENTER)
        .sees("Replicas (2)")
        .types(ENTER)
        .sees("Send these answers?")
        .types(ENTER);
    assert_eq!(
        screen.sent(),
        json!({"action": "accept", "content": {"answer": 2}})
    );
}

#[test]
fn optional_fields_can_be_left_empty() {
    let params = json!({
        "mode": "form",
        "message": "Anything else?",
        "requestedSchema": {
            "type": "object",
            "properties": {
                "note": {"type": "string"},
                "count": {"type": "integer"},
                "urgent": {"type": "boolean"},
                "colour": {"type": "string", "enum": ["red", "blue"]},
                "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}, "minItems": 1}
            }
        }
    });
    let mut screen = Screen::form(params);
    screen
        .sees("Answer this form?")
        .types(ENTER)
        .sees("leaves it empty")
        .types(ENTER)
        .sees("count (optional)")
        .types(ENTER)
        .sees("(leave empty)")
        .types(ENTER)
        .sees("colour (optional)")
        .types(ENTER)
        .sees("tags (optional)")
        .types(ENTER)
        .sees("Send these answers?")
        .types(ENTER);
    assert_eq!(screen.sent(), json!({"action": "accept", "content": {}}));
}

#[test]
fn a_multi_select_keeps_to_its_bounds() {
    let tags = json!({"type": "array", "title": "Tags", "minItems": 1, "maxItems": 1,
                      "items": {"type": "string", "enum": ["a", "b"]}});
    let mut screen = Screen::form(one_field(tags, true));
    screen
        .sees("Answer this form?")
        .types(ENTER)
        .sees("choose exactly 1")
        .types(ENTER)
        .sees("Tags needs at least 1 choice")
        .types(SPACE)
        .types(DOWN)
        .types(SPACE)
        .types(ENTER)
        .sees("Tags allows at most 1 choice")
        .types(SPACE)
        .types(ENTER)
        .sees("Send these answers?")
        .types(ENTER);
    assert_eq!(
        screen.sent(),
        json!({"action": "accept", "content": {"answer": ["a"]}})
    );
}

#[test]
fn an_answer_is_changed_at_the_review() {
    let params = json!({
        "mode": "form",
        "message": "Deploy.",
        "requestedSchema": {
            "type": "object",
            "properties": {
                "env": {"type": "string", "title": "Environment", "enum": ["staging", "production"]},
                "replicas": {"type": "integer", "title": "Replicas"}
            },
            "required": ["env", "replicas"]
        }
    });
    let mut screen = Screen::form(params);
    screen
        .sees("Answer this form?")
        .types(ENTER)
        .sees("Environment")
        .types(ENTER)
        .sees("Replicas")
        .types("2")
        .types(ENTER)
        .sees("Send these answers?")
        .types(DOWN)
        .types(ENTER)
        .sees("Which answer?")
        .types(ENTER)
        .sees("? Environment")
        .types(DOWN)
        .types(ENTER)
        .sees("Your answers:")
        .sees("production")
        .sees("Send these answers?")
        .types(ENTER);
    assert_eq!(
        screen.sent(),
        json!({"action": "accept", "content": {"env": "production", "replicas": 2}})
    );
}

#[test]
fn decline_first_or_at_the_review() {
    let replicas = json!({"type": "integer"});
    let mut screen = Screen::form(one_field(replicas.clone(), true));
    screen.sees("Answer this form?").types(DOWN).types(ENTER);
    assert_eq!(screen.sent(), json!({"action": "decline"}));

    let mut screen = Screen::form(one_field(replicas, true));
    screen
        .sees("Answer this form?")
        .types(ENTER)
        .sees("answer")
        .types("1")
        .types(ENTER)
        .sees("Send these answers?")
        .types(UP)
        .types(ENTER);
    assert_eq!(screen.sent(), json!({"action": "decline"}));
}

#[test]
fn escape_or_ctrl_c_anywhere_dismisses_the_form() {
    let name = json!({"type": "string", "title": "Name"});
    let mut screen = Screen::form(one_field(name.clone(), true));
    screen
        .sees("Answer this form?")
        .types(ENTER)
        .sees("Name")
        .types("half typed")
        .escape();
    assert_eq!(screen.sent(), json!({"action": "cancel"}));

    let mut screen = Screen::form(one_field(name, true));
    screen.sees("Answer this form?").escape();
    assert_eq!(screen.sent(), json!({"action": "cancel"}));

    let mut screen = Screen::form(one_field(json!({"type": "boolean"}), true));
    screen.sees("Answer this form?").types(ENTER).sees("Yes");
    screen
        .session
        .send_control('c')
        .expect("the pty takes keys");
    assert_eq!(screen.sent(), json!({"action": "cancel"}));
}

#[test]
fn a_field_named_like_a_credential_is_warned_about_first() {
    let params = json!({
        "mode": "form",
        "message": "Connect.",
        "requestedSchema": {"type": "object", "properties": {"password": {"type": "string"}}}
    });
    let mut screen = Screen::form(params);
    screen
        .sees("⚠ `password` looks like a password: a server must not ask for one in a form")
        .sees("Answer this form?")
        .types(DOWN)
        .types(ENTER);
    assert_eq!(screen.sent(), json!({"action": "decline"}));
}

/// A credential in disguise: a field named `p` or `pw`, but titled or described as a password or
/// a PIN, is warned about like one named so, what is typed in it is not echoed, and the review
/// does not show it again. It is sent all the same: the user was warned and chose to answer.
#[test]
fn a_field_titled_or_described_like_a_credential_is_warned_about_masked_and_hidden() {
    let params = json!({
        "mode": "form",
        "message": "Connect.",
        "requestedSchema": {"type": "object", "properties": {
            "p": {"type": "string", "title": "GitHub password"},
            "pw": {"type": "string", "description": "The PIN of your card"}
        }, "required": ["p", "pw"]}
    });
    let mut screen = Screen::form(params);
    screen
        .sees("⚠ `p` looks like a password: a server must not ask for one in a form")
        .sees("⚠ `pw` looks like a PIN: a server must not ask for one in a form")
        .sees("Answer this form?")
        .types(ENTER)
        .sees("GitHub password")
        .types("hunter2")
        .types(ENTER)
        .sees("The PIN of your card")
        .types("4321")
        .types(ENTER)
        .sees("Your answers:")
        .sees("(hidden)")
        .sees("(hidden)")
        .sees("Send these answers?");
    for secret in ["hunter2", "4321"] {
        assert!(
            !screen.drawn.contains(secret),
            "{secret} was drawn: {}",
            screen.drawn
        );
    }
    screen.types(ENTER);
    assert_eq!(
        screen.sent(),
        json!({"action": "accept", "content": {"p": "hunter2", "pw": "4321"}})
    );
}

#[test]
fn what_a_server_writes_cannot_act_on_the_terminal() {
    let params = json!({
        "mode": "form",
        "message": "Fine\u{1b}[2J\u{1b}[1;1Hprint\u{202e}gnp.exe",
        "requestedSchema": {"type": "object", "properties": {
            "a": {"type": "string", "title": "Ti\u{1b}[8mtle"}
        }}
    });
    let mut screen = Screen::answering("ops\u{7}", "2025-11-25", &params);
    screen
        .sees("│ From: ops\\u{7}")
        .sees("│ Fine\\u{1b}[2J\\u{1b}[1;1Hprint\\u{202e}gnp.exe")
        .sees("Answer this form?")
        .types(ENTER)
        .sees("Ti\\u{1b}[8mtle (optional)")
        .escape();
    assert_eq!(screen.sent(), json!({"action": "cancel"}));
}

fn page(url: &str) -> Value {
    json!({
        "mode": "url",
        "message": "Sign in to connect your account.",
        "url": url,
        "elicitationId": "e-1"
    })
}

#[test]
fn a_page_is_shown_whole_its_host_apart_and_accepted() {
    let url = "https://accounts.example.com/oauth/authorize?client_id=abc&state=xyz";
    let mut screen = Screen::answering("GitHub tools", "2025-11-25", &page(url));
    screen
        .sees("── A server asks you to open a page ──")
        .sees("│ From: GitHub tools")
        .sees("Sign in to connect your account.")
        .sees("Host  accounts.example.com")
        .sees(&format!("URL   {url}"))
        .sees("nothing opens unless you accept")
        .types(UP)
        .types(ENTER)
        .sees("Open it in your browser:")
        .sees(url);
    assert_eq!(screen.sent(), json!({"action": "accept"}));
}

#[test]
fn a_look_alike_host_is_warned_about_and_the_page_declined_or_dismissed() {
    let url = "https://xn--pple-43d.com/login";
    let mut screen = Screen::answering("tools", "2025-11-25", &page(url));
    screen
        .sees("Host  xn--pple-43d.com")
        .sees("⚠ the host has an internationalised name (xn--), which may imitate another")
        .sees("Open this page?")
        .types(ENTER);
    assert_eq!(screen.sent(), json!({"action": "decline"}));

    let mut screen = Screen::answering("tools", "2025-11-25", &page("https://192.0.2.7/login"));
    screen
        .sees("⚠ the host is an IP address, not a name")
        .sees("Open this page?")
        .escape();
    assert_eq!(screen.sent(), json!({"action": "cancel"}));
}

#[test]
fn a_request_a_host_cannot_show_is_refused_before_anything_is_drawn() {
    let nested = one_field(json!({"type": "object", "properties": {}}), true);
    let mut screen = Screen::form(nested);
    let (_, line) = screen
        .session
        .exp_regex(r"refused: [^\r\n]*")
        .expect("it says why");
    assert!(line.contains("answer"), "{line}");
    let mut screen = Screen::answering("tools", "2025-11-25", &page("javascript:alert(1)"));
    screen.sees("refused: ");
}

#[test]
fn keys_typed_before_a_page_is_shown_do_not_accept_it() {
    let url = "https://accounts.example.com/login";
    let mut screen = Screen::answering("tools", "2025-11-25", &page(url));
    // Keys meant for something else, typed before the page is drawn: they would accept it.
    screen.types(UP).types(ENTER);
    screen.sees("Open this page?").escape();
    assert_eq!(screen.sent(), json!({"action": "cancel"}));
}

#[test]
fn an_empty_form_is_sent_or_declined_with_nothing_to_change() {
    let empty = json!({"mode": "form", "message": "Go on?",
                       "requestedSchema": {"type": "object", "properties": {}}});
    let mut screen = Screen::form(empty);
    screen
        .sees("Answer this form?")
        .types(ENTER)
        .sees("Send these answers?")
        .sees("Send")
        .sees("Decline");
    screen.types(DOWN).types(ENTER);
    assert_eq!(screen.sent(), json!({"action": "decline"}));
}

/// A form of one whole number `N`, answered 5 (and Enter), on its way to the review.
fn answered_five() -> Screen {
    let mut screen = Screen::form(one_field(json!({"type": "integer", "title": "N"}), true));
    screen
        .sees("Answer this form?")
        .types(ENTER)
        .sees("? N")
        .types("5")
        .types(ENTER);
    screen
}

#[test]
fn escape_at_which_answer_goes_back_to_the_review() {
    let mut screen = answered_five();
    screen
        .sees("Send these answers?")
        .types(DOWN)
        .types(ENTER)
        .sees("esc to go back")
        .escape()
        .sees("Send these answers?")
        .types(ENTER);
    assert_eq!(
        screen.sent(),
        json!({"action": "accept", "content": {"answer": 5}})
    );
}

#[test]
fn an_emptied_multi_select_with_a_default_sends_no_choice_not_the_default() {
    let channels = json!({"type": "array", "title": "Channels", "default": ["email"],
                          "items": {"type": "string", "enum": ["email", "sms"]}});
    let mut screen = Screen::form(one_field(channels, false));
    screen
        .sees("Answer this form?")
        .types(ENTER)
        .sees("? Channels")
        .types(SPACE)
        .types(ENTER)
        .sees("Send these answers?")
        .types(ENTER);
    assert_eq!(
        screen.sent(),
        json!({"action": "accept", "content": {"answer": []}})
    );
}

/// With nothing stripped from what the terminal receives: a server's escape sequence or
/// bidirectional override, wherever the server can put text (its name, the message, a title, a
/// description, an option, a default, a field's name in a note), never reaches the terminal.
#[test]
fn no_raw_control_from_the_server_reaches_the_terminal() {
    let evil = "\u{1b}]0;pwned\u{7}\u{1b}[31m\u{202e}";
    let params = json!({
        "mode": "form",
        "message": format!("msg{evil}"),
        "requestedSchema": {"type": "object", "properties": {
            format!("password{evil}"): {"type": "string", "title": format!("T{evil}"),
                "description": format!("D{evil}"), "default": format!("d{evil}")},
            "pick": {"type": "string", "oneOf": [{"const": format!("v{evil}"), "title": format!("O{evil}")}]}
        }}
    });
    let mut command = Command::new("sh");
    command
        .args(["-c", "stty rows 40 cols 200 && exec \"$@\"", "sh"])
        .arg(env!("CARGO_BIN_EXE_answer_in_terminal"))
        .args([
            format!("srv{evil}"),
            "2025-11-25".to_owned(),
            params.to_string(),
        ]);
    let options = Options::new().timeout_ms(Some(20_000));
    let mut session = spawn_with_options(command, options).expect("the pty starts");
    let mut drawn = String::new();
    let mut upto = |session: &mut PtySession, text: &str| {
        let before = session.exp_string(text).expect("drawn");
        drawn.push_str(&before);
        drawn.push_str(text);
    };
    let press = |session: &mut PtySession, key: &str| {
        session.send(key).expect("the pty takes keys");
        session.flush().expect("the pty takes keys");
    };
    upto(&mut session, "Answer this form?");
    press(&mut session, ENTER);
    upto(&mut session, "T\\u{1b}]0;pwned");
    upto(&mut session, "\n");
    press(&mut session, ENTER);
    upto(&mut session, "O\\u{1b}]0;pwned");
    upto(&mut session, "\n");
    std::thread::sleep(std::time::Duration::from_millis(50));
    press(&mut session, ESC);
    upto(&mut session, "sent: ");
    // rexpect gives each byte as a char: the raw sequences, as it would read them.
    let raw = |text: &str| -> String { text.bytes().map(char::from).collect() };
    for sequence in ["\u{1b}]0;pwned", "\u{1b}[31m", "\u{202e}"] {
        assert!(
            !drawn.contains(&raw(sequence)),
            "{sequence:?} reached the terminal: {drawn:?}"
        );
    }
    for shown in [
        "srv\\u{1b}",
        "msg\\u{1b}",
        "D\\u{1b}",
        "password\\u{1b}",
        "d\\u{1b}",
    ] {
        assert!(drawn.contains(shown), "{shown} was not shown: {drawn:?}");
    }
}

/// A message padded to wrap cannot start a row of its own: every row of it is in the gutter,
/// so it cannot draw a second Host/URL pair above the page's own.
#[test]
fn a_message_cannot_pass_for_the_page_host() {
    let fake = format!(
        "Sign in.{pad}  Host  accounts.google.com{pad}  URL   https://accounts.google.com/",
        pad = " ".repeat(130)
    );
    let params = json!({"mode": "url", "message": fake, "url": "https://evil.example/login",
                        "elicitationId": "e-1"});
    let mut screen = Screen::answering("tools", "2025-11-25", &params);
    let drawn = screen.session.exp_string("Open this page?").expect("drawn");
    let hosts: Vec<&str> = drawn
        .split("\r\n")
        .filter(|row| row.trim_start().starts_with("Host"))
        .collect();
    assert_eq!(hosts, ["  Host  evil.example"], "{drawn}");
    // No row is wider than the terminal (120 columns), so none wraps into a row of its own.
    let gutter: String = "│ ".bytes().map(char::from).collect();
    for row in drawn
        .split("\r\n")
        .filter_map(|row| row.strip_prefix(gutter.as_str()))
    {
        assert!(
            row.chars().count() <= 118,
            "a row of {} columns: {row:?}",
            row.len()
        );
    }
    screen.escape();
    assert_eq!(screen.sent(), json!({"action": "cancel"}));
}

/// Characters a terminal may draw though this crate counts them as nothing (U+3164, a Hangul
/// filler, is two columns wide to glibc and none to unicode-width) are shown escaped, like every
/// invisible character: a message of them cannot push a fake Host line out of the gutter.
#[test]
fn invisible_characters_in_a_message_are_shown_escaped() {
    let fake = format!(
        "Sign in.{fill}  Host  accounts.google.com{fill}",
        fill = "\u{3164}\u{ffa0}".repeat(40)
    );
    let params = json!({"mode": "url", "message": fake, "url": "https://evil.example/login",
                        "elicitationId": "e-1"});
    let mut screen = Screen::answering("tools", "2025-11-25", &params);
    let drawn = screen.session.exp_string("Open this page?").expect("drawn");
    let raw = |text: &str| -> String { text.bytes().map(char::from).collect() };
    for filler in ["\u{3164}", "\u{ffa0}"] {
        assert!(
            !drawn.contains(&raw(filler)),
            "{filler:?} was drawn as it is"
        );
    }
    assert!(drawn.contains("\\u{3164}\\u{ffa0}"), "{drawn}");
    screen.escape();
    assert_eq!(screen.sent(), json!({"action": "cancel"}));
}

/// The screen of a terminal of [`Emulated::COLUMNS`] × [`Emulated::ROWS`] running
/// `answer_in_terminal`: every byte the pty gave, drawn by `vt100` (a terminal emulator), so a
/// test reads the rows as a user sees them, wrapped where the terminal wraps them.
struct Emulated {
    session: PtySession,
    screen: vt100::Parser,
}

impl Emulated {
    const ROWS: u16 = 100;
    const COLUMNS: u16 = 80;

    fn answering(server: &str, params: &Value) -> Self {
        let program = env!("CARGO_BIN_EXE_answer_in_terminal");
        Self::running(program, &[server, "2025-11-25", &params.to_string()])
    }

    /// `program` with `args`, in a pty of [`ROWS`](Self::ROWS) and [`COLUMNS`](Self::COLUMNS).
    fn running(program: &str, args: &[&str]) -> Self {
        let mut command = Command::new("sh");
        command
            .args([
                "-c",
                &format!(
                    "stty rows {} cols {} && exec \"$@\"",
                    Self::ROWS,
                    Self::COLUMNS
                ),
                "sh",
                program,
            ])
            .args(args);
        let options = Options::new().timeout_ms(Some(20_000));
        let session = spawn_with_options(command, options).expect("the pty starts");
        let size = |n| std::num::NonZeroU16::new(n).expect("not zero");
        let screen = vt100::Parser::new(size(Self::ROWS), size(Self::COLUMNS), 0);
        Self { session, screen }
    }

    /// Wait until `text` is drawn (in one run: no escape code within it), and draw everything
    /// up to it.
    fn sees(&mut self, text: &str) -> &mut Self {
        let needle: String = text.bytes().map(char::from).collect();
        let before = match self.session.exp_string(&needle) {
            Ok(before) => before,
            Err(error) => panic!("the terminal never showed {text:?}: {error}"),
        };
        // rexpect gives each byte as a char.
        let bytes: Vec<u8> = before
            .chars()
            .chain(needle.chars())
            .map(|c| u8::try_from(u32::from(c)).expect("a byte"))
            .collect();
        self.screen.process(&bytes);
        self
    }

    /// Draw everything up to the program's exit.
    fn drawn_until_exit(&mut self) -> &mut Self {
        let rest = self.session.exp_eof().expect("it exits");
        let bytes: Vec<u8> = rest
            .chars()
            .map(|c| u8::try_from(u32::from(c)).expect("a byte"))
            .collect();
        self.screen.process(&bytes);
        self
    }

    /// The screen's rows, as drawn so far.
    fn rows(&self) -> Vec<String> {
        self.screen.screen().rows(0, Self::COLUMNS).collect()
    }

    fn types(&mut self, keys: &str) -> &mut Self {
        self.session.send(keys).expect("the pty takes keys");
        self.session.flush().expect("the pty takes keys");
        self
    }

    /// Every row on the screen now, whatever starts it: none that holds server text (here, and
    /// only here, the letter Q, in either case) starts with it, at column 0.
    fn no_row_starts_with_server_text(&mut self, at: &str) -> &mut Self {
        let rows: Vec<String> = self.screen.screen().rows(0, Self::COLUMNS).collect();
        let shown = rows.join("\n");
        for (number, row) in rows.iter().enumerate() {
            assert!(
                !row.starts_with(['Q', 'q']),
                "{at}: row {number} starts with server text:\n{shown}"
            );
        }
        assert!(shown.contains(['Q', 'q']), "{at}: no server text on screen");
        self
    }
}

/// Server text too long for its row, in every slot a server writes (its name, the message, a
/// field's name, title, description and default, an option's title and value, a name in a note,
/// the page's host and URL), never wraps into a row of its own that could pass for the
/// terminal's (a heading, `Your answers:`, a Host line): it is drawn in the gutter or cut with
/// `…`, on every screen of a form and of a page, as a terminal emulator draws them.
#[test]
fn no_server_text_starts_a_row_of_its_own() {
    let q = |first: &str| format!("{first}{}", "Q".repeat(120));
    let name = q("n");
    let params = json!({
        "mode": "form",
        "message": q("M"),
        "requestedSchema": {"type": "object", "properties": {
            name.clone(): {"type": "integer"},
            "t": {"type": "string", "title": q("T"), "description": q("D"), "default": q("d")},
            "s": {"type": "string", "title": q("S"),
                  "oneOf": [{"const": "a", "title": q("O")}, {"const": "b", "title": q("P")}]},
            "e": {"type": "string", "enum": [q("V"), q("W")]},
            "m": {"type": "array", "title": q("A"),
                  "items": {"anyOf": [{"const": "x", "title": q("X")}, {"const": "y", "title": q("Y")}]}},
            q("password_"): {"type": "string"}
        }, "required": [name, "s", "e", "m", q("ghost_")]}
    });
    let mut screen = Emulated::answering(&q("R"), &params);
    screen
        .sees("Answer this form?")
        .no_row_starts_with_server_text("the heading and the notes")
        .types(ENTER)
        .sees("whole number")
        .no_row_starts_with_server_text("a field named, not titled")
        .types("x")
        .types(ENTER)
        .sees("must be a whole number")
        .no_row_starts_with_server_text("a field's error")
        .types(BACKSPACE)
        .types("1")
        .types(ENTER)
        .sees("DQQQQ")
        .sees("esc cancels the form")
        .no_row_starts_with_server_text("a title, a description, a default")
        .types(ENTER)
        .sees("OQQQQ")
        .sees("type to filter")
        .no_row_starts_with_server_text("a select's options")
        .types(ENTER)
        .sees("VQQQQ")
        .sees("type to filter")
        .no_row_starts_with_server_text("a select's option values")
        .types(ENTER)
        .sees("XQQQQ")
        .sees("space to select")
        .no_row_starts_with_server_text("a multi-select's options")
        .types(SPACE)
        .types(DOWN)
        .types(SPACE)
        .types(ENTER)
        .sees("password_QQQQ")
        .sees("esc cancels the form")
        .types("secret")
        .types(ENTER)
        .sees("Send these answers?")
        .no_row_starts_with_server_text("the answers and the review")
        .types(DOWN)
        .types(ENTER)
        .sees("Which answer?")
        .sees("esc to go back")
        .no_row_starts_with_server_text("which answer to change");
    std::thread::sleep(std::time::Duration::from_millis(50));
    screen.types(ESC).sees("Send these answers?");
    std::thread::sleep(std::time::Duration::from_millis(50));
    screen.types(ESC).sees("sent: ");

    let host = format!("{}.{}.example", "q".repeat(60), "q".repeat(60));
    let url = format!("https://{host}/{}", "Q".repeat(200));
    let page = json!({"mode": "url", "message": q("M"), "url": url, "elicitationId": "e-1"});
    let mut screen = Emulated::answering(&q("R"), &page);
    screen
        .sees("Open this page?")
        .sees("nothing opens unless you accept")
        .no_row_starts_with_server_text("a page: its host and URL")
        .types(UP)
        .types(ENTER)
        .sees("sent: ")
        .no_row_starts_with_server_text("a page, accepted");
}

/// Options cut alike on the select's row (`…`) are told apart at the review, which shows the one
/// chosen whole, wrapped under its label, before anything is sent.
#[test]
fn options_alike_up_to_the_cut_are_shown_whole_at_the_review() {
    let pay = |amount: &str| format!("Pay Alice{} {amount}", ".".repeat(120));
    let choice = json!({"type": "string", "title": "Payment",
                        "oneOf": [{"const": "a", "title": pay("10 EUR")},
                                  {"const": "b", "title": pay("9000 EUR")}]});
    let mut screen = Screen::form(one_field(choice, true));
    screen
        .sees("Answer this form?")
        .types(ENTER)
        .sees("? Payment")
        .types(DOWN)
        .types(ENTER)
        .sees("Your answers:")
        .sees("9000 EUR")
        .sees("Send these answers?")
        .escape();
    assert_eq!(screen.sent(), json!({"action": "cancel"}));
}

/// A second Enter pressed right after the last field's does not send the form: the review waits.
#[test]
fn a_double_enter_does_not_skip_the_review() {
    let mut screen = answered_five();
    std::thread::sleep(std::time::Duration::from_millis(100));
    screen.types(ENTER).sees("Send these answers?").escape();
    assert_eq!(screen.sent(), json!({"action": "cancel"}));
}

#[test]
fn escape_while_changing_an_answer_keeps_it() {
    let mut screen = answered_five();
    screen
        .sees("Send these answers?")
        .types(DOWN)
        .types(ENTER)
        .sees("Which answer?")
        .types(ENTER)
        .sees("esc to go back")
        .types("9")
        .escape()
        .sees("Send these answers?")
        .types(ENTER);
    assert_eq!(
        screen.sent(),
        json!({"action": "accept", "content": {"answer": 5}})
    );
}

// ------------------------------------------------- terminal_client: a host, in a real terminal

/// An example built beside this test (`cargo test -p elicit-examples --features terminal`
/// builds them all): `target/<profile>/examples/<name>`.
fn example(name: &str) -> String {
    let test = std::env::current_exe().expect("the test knows where it is");
    let path: PathBuf = test
        .parent()
        .and_then(|deps| deps.parent())
        .map(|profile| profile.join("examples").join(name))
        .expect("the test runs from target/<profile>/deps");
    assert!(
        path.exists(),
        "{} is not built: `cargo test -p elicit-examples --features terminal` builds it",
        path.display()
    );
    path.display().to_string()
}

/// Answer `book_table`'s form: 4 guests on 2026-12-24, the rest as it is, and send it.
fn books_for_four(screen: &mut Screen) {
    screen
        .sees("book_table  Book a table; asks the guest for the details.")
        .sees("│ From: booking")
        .sees("│ Your table: for how many, when, and where would you like to sit?")
        .sees("Answer this form?")
        .types(ENTER)
        .sees("Party size")
        .types("4")
        .types(ENTER)
        .sees("Date")
        .types("2026-12-24")
        .types(ENTER)
        .sees("Seating")
        .types(ENTER)
        .sees("Anything we should know? (optional)")
        .types(ENTER)
        .sees("Send these answers?")
        .types(ENTER);
}

#[test]
fn terminal_client_books_a_table_on_the_booking_server_on_both_revisions() {
    let (client, booking) = (example("terminal_client"), example("booking"));
    for revision in ["2025-11-25", "2026-07-28"] {
        let args = [
            "--revision",
            revision,
            "--call",
            "book_table",
            booking.as_str(),
        ];
        let mut screen = Screen::running(&client, &args);
        books_for_four(&mut screen);
        let result = screen.line_after("── book_table returned ──");
        assert_eq!(
            result.trim(),
            "A table for 4 on 2026-12-24.",
            "on {revision}"
        );
        screen.session.exp_eof().expect("it exits after the call");
    }
}

#[test]
fn terminal_client_says_what_a_declined_form_returned() {
    let (client, booking) = (example("terminal_client"), example("booking"));
    let mut screen = Screen::running(&client, &["--call", "book_table", booking.as_str()]);
    screen.sees("Answer this form?").types(DOWN).types(ENTER);
    let result = screen.line_after("── book_table returned ──");
    assert_eq!(result.trim(), "You declined: nothing was booked.");
}

/// The Python SDK's server (`tests/e2e/elicit_server.py`), run by `.ci/python_e2e.sh`.
fn python_server() -> [String; 2] {
    let python = std::env::var("ELICIT_PYTHON").unwrap_or_else(|_| {
        panic!("set ELICIT_PYTHON to a Python with mcp==2.3.0, as .ci/python_e2e.sh does")
    });
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/e2e/elicit_server.py"
    );
    [python, script.to_owned()]
}

/// What the Python server says it received: its result, which `terminal_client` prints in the
/// gutter wrapped to the terminal's width, read to the end of the output and joined again.
fn received(screen: &mut Screen, tool: &str) -> Value {
    screen.sees(&format!("── {tool} returned ──"));
    let rest = screen.session.exp_eof().expect("it exits after the call");
    result_in(&rest)
}

/// [`received`], for a page accepted on 2025-11-25: the server never reports its step
/// complete, so after the result the terminal waits for it, until the user cancels the wait.
fn received_then_waits(screen: &mut Screen, tool: &str) -> Value {
    screen.sees(&format!("── {tool} returned ──"));
    let needle: String = "? Waiting for the page…".bytes().map(char::from).collect();
    let rest = screen
        .session
        .exp_string(&needle)
        .expect("it waits for the page");
    screen.escape();
    screen
        .session
        .exp_eof()
        .expect("it exits once the wait is cancelled");
    result_in(&rest)
}

/// The first JSON value in the gutter rows at the start of `rest`, joined again.
fn result_in(rest: &str) -> Value {
    let gutter: String = "│ ".bytes().map(char::from).collect();
    let text: String = rest
        .lines()
        .map(|line| line.trim_end_matches('\r'))
        .skip_while(|line| line.trim().is_empty())
        .map_while(|line| line.strip_prefix(&gutter))
        .collect();
    // The text content first; what follows it (its structured content) is not read.
    let mut values = serde_json::Deserializer::from_str(text.trim()).into_iter::<Value>();
    match values.next() {
        Some(Ok(value)) => value,
        other => panic!("the Python server returns JSON ({other:?}): {text:?}"),
    }
}

#[test]
#[ignore = "needs Python with mcp==2.3.0: run by .ci/python_e2e.sh (ELICIT_PYTHON)"]
fn python_sdk_server_answered_in_terminal_client() {
    let client = example("terminal_client");
    let [python, script] = python_server();
    for revision in ["2025-11-25", "2026-07-28"] {
        let args = [
            "--revision",
            revision,
            "--call",
            "book_table",
            &python,
            &script,
        ];
        let mut screen = Screen::running(&client, &args);
        screen
            .sees("python elicit_server.py (calling itself \"elicit-e2e\") offers 2 tool(s):")
            .sees("│ From: python elicit_server.py")
            .sees("Book a table: who is it for, how many, and where?")
            .sees("Answer this form?")
            .types(ENTER)
            .sees("Who the table is for")
            .types("Ada")
            .types(ENTER)
            .sees("a whole number from 1 to 12")
            .types("3")
            .types(ENTER)
            .sees("A table outside")
            .types(ENTER)
            .sees("Where")
            .types(DOWN)
            .types(ENTER)
            .sees("Send these answers?")
            .types(ENTER);
        let got = received(&mut screen, "book_table");
        assert_eq!(got["protocolVersion"], revision);
        assert_eq!(got["action"], "accept");
        assert_eq!(
            got["content"],
            json!({"name": "Ada", "guests": 3, "outdoor": false, "seating": "terrace"}),
            "on {revision}"
        );

        let args = [
            "--revision",
            revision,
            "--call",
            "connect_account",
            &python,
            &script,
        ];
        let mut screen = Screen::running(&client, &args);
        screen
            .sees("asks you to open a page")
            .sees("Host  calendar.example.com")
            .sees("URL   https://calendar.example.com/connect?flow=e2e")
            .sees("Open this page?")
            .types(UP)
            .types(ENTER)
            .sees("Open it in your browser:");
        // 2025-11-25's page has an id the server could report complete (it never does);
        // 2026-07-28's has none, and the server does not ask about it again.
        let got = if revision == "2025-11-25" {
            received_then_waits(&mut screen, "connect_account")
        } else {
            received(&mut screen, "connect_account")
        };
        assert_eq!(got["action"], "accept", "on {revision}");
    }
}

/// Without a terminal (standard input not one) the client declares no elicitation: the server
/// does not ask, and says so in its result.
#[test]
fn terminal_client_without_a_terminal_declares_no_elicitation() {
    let (client, booking) = (example("terminal_client"), example("booking"));
    let output = Command::new(client)
        .args(["--call", "book_table", booking.as_str()])
        .stdin(std::process::Stdio::null())
        .output()
        .expect("terminal_client runs");
    let (stdout, stderr) = (
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr),
    );
    assert!(
        stderr.contains("Not a terminal: the client declares no elicitation"),
        "{stderr}"
    );
    assert!(stdout.contains("── book_table failed ──"), "{stdout}");
    assert!(stdout.contains("elicitation"), "{stdout}");
    assert_eq!(
        output.status.code(),
        Some(3),
        "an error result exits with 3"
    );
}

// ------------------------------------ terminal_client: waiting for a page the user accepted

/// `terminal_client --call <tool>` with `args` on `revision`, against `page_server`, its page
/// accepted.
fn page_accepted(revision: &str, tool: &str, args: &str) -> Screen {
    let client = example("terminal_client");
    let server = env!("CARGO_BIN_EXE_page_server");
    let args = [
        "--revision",
        revision,
        "--call",
        tool,
        "--args",
        args,
        server,
    ];
    let mut screen = Screen::running(&client, &args);
    screen
        .sees("── A server asks you to open a page ──")
        .sees("Host  pages.example.com")
        .sees("Open this page?")
        .types(UP)
        .types(ENTER)
        .sees("Open it in your browser:");
    screen
}

/// 2025-11-25: while the call goes on, the terminal shows that it waits for the page, with its
/// choices; the server's completion ends the wait (one for an id it never asked about, sent
/// first, does not), and the call returns.
#[test]
fn terminal_client_waits_for_a_page_and_shows_when_its_step_completes() {
    let args = r#"{"complete_after_ms": 3000}"#;
    let mut screen = page_accepted("2025-11-25", "connect", args);
    screen
        .sees("Waiting for the server to report the step on the page complete.")
        .sees("── Waiting for the page ──")
        .sees("? Waiting for the page…")
        .sees("> Check again")
        .sees("  Cancel");
    // The notification comes first on the wire, but the client handles it on a task of its own:
    // the result may be drawn before the completion, or after it. Both are drawn.
    let rest = screen.session.exp_eof().expect("it exits after the call");
    let rest: Vec<u8> = rest.chars().map(|c| u32::from(c) as u8).collect();
    let rest = String::from_utf8_lossy(&rest);
    let lines: Vec<&str> = rest.lines().map(str::trim_end).collect();
    let line = |start: &str| lines.iter().position(|line| line.starts_with(start));
    let completed = line("✓ The server reports the step on the page complete:").expect(&rest);
    assert_eq!(lines[completed + 1], "  Host  pages.example.com", "{rest}");
    let returned = line("── connect returned ──").expect(&rest);
    assert_eq!(lines[returned + 1], "│ Connected.", "{rest}");
}

/// 2025-11-25: *Cancel* while waiting gives the call up (rmcp cancels it on the server).
#[test]
fn terminal_client_cancels_a_call_whose_page_never_completes() {
    let mut screen = page_accepted("2025-11-25", "connect", "{}");
    screen.sees("? Waiting for the page…").escape();
    screen
        .sees("? Waiting for the page… Cancel: the request is given up.")
        .sees("── connect cancelled ──");
    screen.session.exp_eof().expect("it exits after the call");
}

/// 2025-11-25: a tool that returns before the step is done ("call again"): the wait follows the
/// result, and ends when the server reports the step complete.
#[test]
fn terminal_client_waits_after_a_call_that_returned_for_its_page() {
    let args = r#"{"complete_after_ms": 2500}"#;
    let mut screen = page_accepted("2025-11-25", "connect_later", args);
    let result = screen.line_after("── connect_later returned ──");
    assert_eq!(
        result.trim(),
        "Finish on the page, then call this tool again."
    );
    screen
        .sees("── Waiting for the page ──")
        .sees("? Waiting for the page…")
        .sees("✓ The server reports the step on the page complete:");
    screen
        .session
        .exp_eof()
        .expect("it exits once the wait ends");
}

/// 2025-11-25: *Check again* after the call returned sends it again; the server asks about the
/// same page, which the terminal shows as asked again, and *Cancel* there gives it up.
#[test]
fn terminal_client_checks_again_by_calling_again() {
    let mut screen = page_accepted("2025-11-25", "connect_later", "{}");
    screen
        .sees("── connect_later returned ──")
        .sees("? Waiting for the page…")
        .types(ENTER)
        .sees("? Waiting for the page… Check again: the request is sent again.")
        .sees("── connect_later sent again ──")
        .sees("── The server asks again about a page you accepted ──")
        .sees("Host  pages.example.com")
        .sees("Check again?")
        .escape();
    let result = screen.line_after("── connect_later returned ──");
    assert_eq!(result.trim(), "You cancelled: not connected.");
    screen.session.exp_eof().expect("no page waits: it exits");
}

/// 2026-07-28: no notification; the server finds the step not finished and asks about the same
/// page again. *Check again* retries the call with the answer; *Cancel* ends it.
#[test]
fn terminal_client_offers_to_check_again_when_asked_again_on_2026_07_28() {
    let mut screen = page_accepted("2026-07-28", "connect", "{}");
    screen
        .sees("── The server asks again about a page you accepted ──")
        .sees("the step on the page is not finished yet")
        .sees("Host  pages.example.com")
        .sees("Check again?")
        .types(ENTER);
    let result = screen.line_after("── connect returned ──");
    assert_eq!(result.trim(), "Connected.");
    screen.session.exp_eof().expect("it exits after the call");

    let mut screen = page_accepted("2026-07-28", "connect", r#"{"checks": 2}"#);
    screen
        .sees("Check again?")
        .types(ENTER)
        .sees("── The server asks again about a page you accepted ──")
        .sees("Check again?")
        .escape();
    let result = screen.line_after("── connect returned ──");
    assert_eq!(result.trim(), "You cancelled: not connected.");
    screen.session.exp_eof().expect("it exits after the call");
}

/// The wait's choices are drawn in place and leave nothing behind: once the server reports the
/// step complete, the screen a user sees says so, and shows no choice that is gone.
#[test]
fn a_completed_wait_leaves_no_choice_on_the_screen() {
    let client = example("terminal_client");
    let server = env!("CARGO_BIN_EXE_page_server");
    let args = r#"{"complete_after_ms": 3000}"#;
    let mut screen = Emulated::running(&client, &["--call", "connect", "--args", args, server]);
    screen
        .sees("Open this page?")
        .types(UP)
        .types(ENTER)
        .sees("? Waiting for the page…")
        .sees("Check again");
    // The completion and the result, in either order (see the test above).
    let rows = screen.drawn_until_exit().rows();
    let shown = rows.join("\n");
    assert!(
        rows.iter().any(|row| row.trim_end() == "│ Connected."),
        "{shown}"
    );
    assert!(
        rows.iter()
            .any(|row| row.starts_with("✓ The server reports the step on the page complete:")),
        "{shown}"
    );
    // The menu's rows: its question, a choice (under the cursor or not), its help.
    let menu = |row: &str| {
        let row = row.trim_end();
        row.starts_with("? Waiting for the page…")
            || ["> Check again", "  Check again", "> Cancel", "  Cancel"].contains(&row)
            || row.ends_with("esc cancels]")
    };
    assert!(
        !rows.iter().any(|row| menu(row)),
        "a choice is left:\n{shown}"
    );
    assert!(shown.contains("── Waiting for the page ──"), "{shown}");
}

/// `--help` is asked for, not a mistake: the usage on stdout, and success.
#[test]
fn terminal_client_help_is_the_usage_and_success() {
    let output = Command::new(example("terminal_client"))
        .arg("--help")
        .output()
        .expect("it runs");
    assert!(output.status.success(), "{:?}", output.status);
    let stdout = String::from_utf8(output.stdout).expect("text");
    assert!(stdout.starts_with("usage: terminal_client "), "{stdout}");
    assert!(output.stderr.is_empty(), "{:?}", output.stderr);
}
