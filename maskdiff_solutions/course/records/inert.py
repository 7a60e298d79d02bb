"""Student content made inert before a person's browser shows it (formgrader, feedback pages).

Everything in a submission is written by the student: the outputs a kernel produced while grading
(their code ran it), the outputs saved in the file they handed in (they can write any JSON there),
and their markdown answers. nbconvert renders `text/html`, `application/javascript`, SVG and markdown
as they are, and formgrader runs in the instructor's Jupyter server: a script there acts with the
instructor's rights, outside any sandbox. So:

- outputs keep only plain text (streams, errors, `text/plain`) and images of the allowed types
  (PNG, JPEG, GIF, checked by their first bytes and re-encoded), each cut to size, with a note for
  whatever was left out; every output is rebuilt from those fields alone (no metadata but an image's
  width and height, which nbconvert writes into the page);
- a markdown cell a student wrote whose rendering holds anything but plain formatting (raw HTML, a
  script, an image, a link that is not http(s) or mailto, an event handler) is shown as its source
  text instead, with a note.
"""
import base64
import binascii
import html.parser
import re

from nbformat.v4 import new_output

IMAGES = {"image/png": (b"\x89PNG\r\n\x1a\n",), "image/jpeg": (b"\xff\xd8\xff",),
          "image/gif": (b"GIF87a", b"GIF89a")}
TEXT = "text/plain"
SILENT = {"application/vnd.jupyter.widget-view+json"}  # a widget's id, nothing to show: dropped unsaid
CUT = "... output truncated by the grader:"  # autograde.TRUNCATED: grading notes a cut output


def _text(value):
    if isinstance(value, list):
        value = "".join(str(v) for v in value)
    return value if isinstance(value, str) else str(value)


def cut_text(value, most):
    value = _text(value)
    if len(value) <= most:
        return value
    return f"{value[:most]}\n{CUT} {len(value):,} characters in all\n"


def image(mime, value, most):
    """The image re-encoded as clean base64, or (None, why) when it is not what it says or too big."""
    raw = _text(value)
    if len(raw) > most:
        return None, f"a {mime} image of more than {most:,} characters"
    try:
        data = base64.b64decode(re.sub(r"\s+", "", raw), validate=True)
    except (binascii.Error, ValueError):
        return None, f"a {mime} image that is not base64"
    if not data.startswith(IMAGES[mime]):
        return None, f"a {mime} image that is not one"
    return base64.b64encode(data).decode("ascii"), ""


def size(value, most):
    return value if isinstance(value, int) and not isinstance(value, bool) and 0 < value <= most else None


def inert_output(output, max_text=20_000, max_image=2_000_000):
    """A fresh output holding only the plain text and checked images of `output` (any JSON)."""
    if not isinstance(output, dict):
        return new_output("stream", name="stderr", text="[left out by the grader: an output that is not one]\n")
    kind = output.get("output_type")
    if kind == "stream":
        name = output.get("name") if output.get("name") in ("stdout", "stderr") else "stdout"
        return new_output("stream", name=name, text=cut_text(output.get("text", ""), max_text))
    if kind == "error":
        lines, budget = [], max_text
        for line in output.get("traceback") or []:
            if budget <= 0:
                lines.append(f"{CUT} traceback cut")
                break
            line = _text(line)[:budget]
            budget -= len(line)
            lines.append(line)
        return new_output("error", ename=cut_text(output.get("ename", "Error"), 200),
                          evalue=cut_text(output.get("evalue", ""), max_text), traceback=lines)
    if kind not in ("display_data", "execute_result"):
        return new_output("stream", name="stderr", text=f"[left out by the grader: an output of kind "
                                                        f"{cut_text(kind, 40)!r}]\n")
    data = output.get("data") if isinstance(output.get("data"), dict) else {}
    metadata = output.get("metadata") if isinstance(output.get("metadata"), dict) else {}
    kept, kept_meta, dropped = {}, {}, []
    for mime, value in data.items():
        if mime == TEXT:
            kept[TEXT] = cut_text(value, max_text)
        elif mime in IMAGES:
            clean, why = image(mime, value, max_image)
            if clean is None:
                dropped.append(why)
                continue
            kept[mime] = clean
            shape = metadata.get(mime) if isinstance(metadata.get(mime), dict) else {}
            shape = {k: size(shape.get(k), 10_000) for k in ("width", "height")}
            if any(v is not None for v in shape.values()):
                kept_meta[mime] = {k: v for k, v in shape.items() if v is not None}
        elif mime not in SILENT:
            dropped.append(cut_text(mime, 60))
    if dropped or not kept:
        note = f"[left out by the grader: {', '.join(dropped) or 'an empty output'}; only text and images are shown]"
        kept[TEXT] = (kept[TEXT] + "\n" + note) if TEXT in kept and not any(m in kept for m in IMAGES) else \
            kept.get(TEXT, note)
    if kind == "execute_result":
        count = output.get("execution_count")
        return new_output("execute_result", data=kept, metadata=kept_meta,
                          execution_count=count if isinstance(count, int) and not isinstance(count, bool) else None)
    return new_output("display_data", data=kept, metadata=kept_meta)


def data_size(output):
    """Characters an output holds (what it costs the pages that show it)."""
    total = len(_text(output.get("text", ""))) + len(_text(output.get("evalue", "")))
    total += sum(len(_text(line)) for line in output.get("traceback", []) or [])
    total += sum(len(_text(value)) for value in (output.get("data") or {}).values())
    return total


# --- markdown ---------------------------------------------------------------------------------

SAFE_TAGS = {"p", "em", "strong", "b", "i", "code", "pre", "ul", "ol", "li", "blockquote", "h1", "h2",
             "h3", "h4", "h5", "h6", "hr", "br", "a", "table", "thead", "tbody", "tr", "th", "td",
             "del", "s", "sup", "sub", "span", "div", "input"}
SAFE_ATTRIBUTES = {"href", "title", "align", "class", "id", "start", "type", "checked", "disabled"}
SAFE_SCHEMES = ("http", "https", "mailto")


def _word(name):
    """A tag, attribute or scheme name as plain letters (it goes into the note shown in its place)."""
    return re.sub(r"[^a-z0-9-]", "", str(name).lower())[:20] or "unnamed"


class _Audit(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.problems = []

    def handle_starttag(self, tag, attrs):
        if tag not in SAFE_TAGS or (tag == "input" and dict(attrs).get("type") != "checkbox"):
            self.problems.append(f"an HTML {_word(tag)} tag")
        for name, value in attrs:
            if name not in SAFE_ATTRIBUTES:
                self.problems.append(f"an HTML {_word(name)} attribute")
            elif name == "href":
                link = re.sub(r"[\s\x00-\x1f]+", "", value or "").lower()
                scheme = re.match(r"([a-z][a-z0-9+.-]*):", link)
                if scheme and scheme.group(1) not in SAFE_SCHEMES:
                    self.problems.append(f"a {_word(scheme.group(1))} link")

    handle_startendtag = handle_starttag

    def handle_comment(self, data):
        pass

    def handle_pi(self, data):
        self.problems.append("a processing instruction")

    def unknown_decl(self, data):
        self.problems.append("a declaration")


def markdown_problems(source):
    """What in a markdown cell's rendering (nbconvert's own renderer, as formgrader and feedback use)
    is more than plain formatting; empty when nothing is."""
    from nbconvert.filters.markdown import markdown2html
    try:
        rendered = markdown2html(source)
    except Exception as err:  # noqa: BLE001 - a cell nbconvert cannot render is shown as text
        return [f"markdown nbconvert cannot render ({type(err).__name__})"]
    audit = _Audit()
    audit.feed(rendered)
    audit.close()
    return sorted(set(audit.problems))


def as_text(source, problems):
    """A markdown cell's source shown as text in a code block (which the renderer escapes)."""
    fence = "~" * max(3, 1 + max((len(run) for run in re.findall(r"~+", source)), default=0))
    return (f"**[The grader shows this answer as text: it held {', '.join(problems[:5])}, which could act "
            f"in the browser.]**\n\n{fence}text\n{source}\n{fence}\n")


def inert_markdown(cell):
    """Make a student's markdown cell inert in place; returns what was wrong with it (empty: it was
    plain formatting and is unchanged)."""
    problems = markdown_problems(cell.source)
    if cell.get("attachments"):
        problems.append("attachments")
        cell.pop("attachments")
    if problems:
        cell.source = as_text(cell.source, problems)
    return problems
