//! The page's HTML: server-rendered, no script, every server or user text escaped.

use std::cell::RefCell;
use std::fmt::Write as _;
use std::future::Future;

tokio::task_local! {
    /// Who the request's identity named, as every page of the request shows it: set once, by the
    /// check that names the user ([`signed_in`]), inside the scope every request of the pages runs
    /// in ([`scope`]); read by [`page`]. So no page, a refusal included, can leave it out.
    static SIGNED_IN: RefCell<Option<String>>;
}

/// Runs `request` (a whole request of the pages) in a scope where [`signed_in`] records who is
/// signed in for every [`page`] it renders.
pub(super) async fn scope<F: Future>(request: F) -> F::Output {
    SIGNED_IN.scope(RefCell::new(None), request).await
}

/// Every page this request renders from now on says that `name` is signed in, with a link to
/// `sign_out` where the identity has one (its own page: a sign-out is a POST, never this link).
pub(super) fn signed_in(name: &str, sign_out: Option<&str>) {
    let mut line = format!(
        "<p class=\"who\">Signed in as <strong>{}</strong>",
        escape(name)
    );
    if let Some(url) = sign_out {
        let _ = write!(line, " · <a href=\"{}\">Sign out</a>", escape(url));
    }
    line.push_str("</p>\n");
    // Outside a request's scope (a unit test), there is no page to show it on.
    let _ = SIGNED_IN.try_with(|who| *who.borrow_mut() = Some(line));
}

/// What [`signed_in`] recorded for this request, cleared (a sign-out's own page says so).
pub(super) fn signed_out() {
    let _ = SIGNED_IN.try_with(|who| *who.borrow_mut() = None);
}

/// `text` for an HTML text node or a double-quoted attribute value.
///
/// Output encoding, not parsing: the five characters that can end a text node or an attribute
/// value, written as character references (the OWASP rule for both contexts).
pub(super) fn escape(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => escaped.push_str("&amp;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            '"' => escaped.push_str("&quot;"),
            '\'' => escaped.push_str("&#39;"),
            c => escaped.push(c),
        }
    }
    escaped
}

/// The style sheet, served from the pages' own origin (`style-src 'self'`): no inline style.
pub(super) const STYLE: &str = "\
body{font-family:system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem;color:#1b1b1b;line-height:1.5}
h1{font-size:1.4rem;margin-bottom:.3rem}
.who{color:#555;font-size:.9rem;margin:0 0 1rem;padding-bottom:.4rem;border-bottom:1px solid #ddd}
.message{background:#f4f4f6;border-left:4px solid #5b5bd6;padding:.6rem .9rem;white-space:pre-wrap}
label{display:block;font-weight:600;margin-top:1rem}
.hint{color:#555;font-size:.9rem;margin:.1rem 0 .3rem}
input[type=password]{width:100%;box-sizing:border-box;padding:.5rem;font-size:1rem;border:1px solid #999;border-radius:4px}
.error{color:#a4000f;font-size:.9rem;margin:.2rem 0}
button{margin-top:1.4rem;padding:.55rem 1.4rem;font-size:1rem;border:0;border-radius:4px;background:#5b5bd6;color:#fff}
.refused h1{color:#a4000f}
.done h1{color:#1a7f37}
footer{margin-top:2rem;color:#666;font-size:.85rem}
";

/// A whole page: `class` on the body, the title, and the body's HTML (already escaped).
/// The line that says who is signed in ([`signed_in`]) opens the page's `<main>`.
pub(super) fn page(base: &str, class: &str, title: &str, body: &str) -> String {
    let who = SIGNED_IN
        .try_with(|who| who.borrow().clone())
        .ok()
        .flatten()
        .unwrap_or_default();
    let mut html = String::with_capacity(body.len() + who.len() + 512);
    let _ = write!(
        html,
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\
         <title>{title}</title><link rel=\"stylesheet\" href=\"{base}style.css\"></head>\
         <body class=\"{class}\"><main>\n{who}<h1>{title}</h1>\n{body}\n</main>\
         <footer>This page belongs to the MCP server that asked. It never shows what you type \
         to your MCP client or its model.</footer></body></html>\n",
        title = escape(title),
        base = escape(base),
        class = escape(class),
    );
    html
}

#[cfg(test)]
mod tests {
    use super::escape;

    #[test]
    fn text_that_could_end_a_node_or_an_attribute_is_escaped() {
        assert_eq!(
            escape(r#"<script>alert("x")</script> & 'y'"#),
            "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;y&#39;"
        );
        assert_eq!(escape("plain ünïcode"), "plain ünïcode");
    }
}
