"""A tiny document model rendered twice, as Markdown and as self-contained HTML.

The summary is built once as a list of blocks and rendered by both writers, so
summary.md and summary.html can never disagree on a number.

Blocks are tuples:
  ("h", level, text)        heading
  ("p", text)               paragraph
  ("table", headers, rows)  rows are lists of cell strings
  ("list", items)           bullet list of strings
  ("img", src, alt)         image by relative path
"""
import html

CSS = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1400px;
       padding: 0 1em; color: #222; }
table { border-collapse: collapse; margin: .6em 0 1.2em; font-size: 13px; }
th, td { border: 1px solid #ccc; padding: 3px 7px; text-align: left; vertical-align: top; }
th { background: #f0f0f0; }
td.num { text-align: right; white-space: nowrap; }
tr.invalid td { background: #eee; color: #555; }
img { max-width: 100%; border: 1px solid #ddd; margin: .5em 0; }
h1 { font-size: 1.6em; } h2 { font-size: 1.3em; margin-top: 1.8em; } h3 { font-size: 1.1em; }
code { background: #f4f4f4; padding: 0 3px; }
"""


def to_markdown(blocks):
    out = []
    for block in blocks:
        kind = block[0]
        if kind == "h":
            out.append(f"{'#' * block[1]} {block[2]}")
        elif kind == "p":
            out.append(block[1])
        elif kind == "table":
            out.append(_md_table(block[1], block[2]))
        elif kind == "list":
            out.append("\n".join(f"- {item}" for item in block[1]))
        elif kind == "img":
            out.append(f"![{block[2]}]({block[1]})")
        out.append("")
    return "\n".join(out)


def _md_cell(text):
    # A pipe would end the cell and a newline the row.
    return str(text).replace("|", "\\|").replace("\n", " ")


def _md_table(headers, rows):
    lines = ["| " + " | ".join(_md_cell(h) for h in headers) + " |",
             "|" + "|".join(" --- " for _ in headers) + "|"]
    lines += ["| " + " | ".join(_md_cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def to_html(blocks, title):
    body = []
    for block in blocks:
        kind = block[0]
        if kind == "h":
            body.append(f"<h{block[1]}>{html.escape(block[2])}</h{block[1]}>")
        elif kind == "p":
            body.append(f"<p>{_inline(block[1])}</p>")
        elif kind == "table":
            body.append(_html_table(block[1], block[2]))
        elif kind == "list":
            body.append("<ul>" + "".join(f"<li>{_inline(i)}</li>" for i in block[1]) + "</ul>")
        elif kind == "img":
            body.append(f'<p><img src="{html.escape(block[1])}" alt="{html.escape(block[2])}"></p>')
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            f"<title>{html.escape(title)}</title>\n<style>{CSS}</style>\n</head>\n<body>\n"
            + "\n".join(body) + "\n</body>\n</html>\n")


def _inline(text):
    """Escape, then honour the only Markdown the summary uses: `code` and **bold**."""
    parts = html.escape(str(text)).split("`")
    for i in range(1, len(parts), 2):
        parts[i] = f"<code>{parts[i]}</code>"
    bold = "".join(parts).split("**")
    for i in range(1, len(bold), 2):
        bold[i] = f"<strong>{bold[i]}</strong>"
    return "".join(bold)


def _is_number(cell):
    head = str(cell)[:1]
    return head.isdigit() or (head in "-−" and str(cell)[1:2].isdigit())


def _html_table(headers, rows):
    head = "".join(f"<th>{html.escape(str(h))}</th>" for h in headers)
    lines = [f"<table>\n<tr>{head}</tr>"]
    for row in rows:
        invalid = any(str(c).startswith("invalid:") for c in row)
        cells = "".join(f'<td class="num">{_inline(c)}</td>' if _is_number(c)
                        else f"<td>{_inline(c)}</td>" for c in row)
        lines.append(f'<tr class="invalid">{cells}</tr>' if invalid else f"<tr>{cells}</tr>")
    return "\n".join(lines) + "\n</table>"
