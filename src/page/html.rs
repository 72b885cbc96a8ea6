//! The page's HTML: server-rendered, no script, every server or user text escaped.

use std::fmt::Write as _;

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
.who{color:#555;font-size:.9rem;margin-top:0}
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
pub(super) fn page(base: &str, class: &str, title: &str, body: &str) -> String {
    let mut html = String::with_capacity(body.len() + 512);
    let _ = write!(
        html,
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\
         <title>{title}</title><link rel=\"stylesheet\" href=\"{base}style.css\"></head>\
         <body class=\"{class}\"><main>\n<h1>{title}</h1>\n{body}\n</main>\
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
