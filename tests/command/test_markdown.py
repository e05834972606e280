"""``-format=markdown`` (issue #81 §3): outside text shows as written and opens nothing
(read by a real CommonMark renderer, markdown-it-py's); a report is bounded to GitHub's job
summary limit with what does not fit counted, never cut mid-way; roots with nothing to say
are one count."""

from __future__ import annotations

import html
import re

from hypothesis import example, given
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from tofu_solve.command.views.markdown import (
    Line,
    Report,
    RootReport,
    Words,
    append_to_step_summary,
    render,
    text,
)
from tofu_solve.output_edge import one_line

GFM = MarkdownIt("commonmark").enable(["table", "strikethrough"])
WORDS = Words("differ from their lock files", "differs from its lock file", "agree with their lock files",
              "agrees with its lock file", "Differences")


@given(st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=80))
@example("[x](javascript:alert(1)) ![i](http://e/p.png) <img src=x onerror=y> <b>&amp;</b>")
@example("a | b ** c __ d ~~e~~ `f` @octocat #12 $x$ https://e.example/ \\n :rocket:")
def test_outside_text_shows_as_written_and_opens_nothing(s):
    rendered = GFM.renderInline(text(s))
    # the only markup is the entities the renderer writes for text: no element of any kind
    assert "<" not in rendered.replace("&lt;", ""), rendered
    assert html.unescape(rendered) == one_line(s, 500)


def test_a_report_is_bounded_and_counts_what_does_not_fit():
    roots = [RootReport(f"live/env{i}/app", moves=[Line(f'module "m{j}"', "x" * 300, "main.tf:3") for j in range(20)])
             for i in range(200)]
    doc = render(Report("tofu-solve check -recursive", roots, WORDS), limit=64 << 10)
    assert len(doc.encode("utf-8")) <= 64 << 10
    assert doc.count("<details") == doc.count("</details>")  # every section whole
    shown = doc.count("<summary>live/env")
    rows = len(re.findall(r"^\| live/env", doc, re.M))
    assert rows == 200 and 0 < shown < 200
    assert f"{200 - shown} sections more, not shown: a job summary holds at most 64 KiB." in doc
    assert "**200 of 200 root modules differ from their lock files.**" in doc


def test_roots_with_nothing_to_say_are_one_count():
    roots = [RootReport(f"r{i}") for i in range(50)] + [RootReport("x", failures=[Line("Invalid syntax", "d",
                                                                                     "x/main.tf:1")])]
    doc = render(Report("tofu-solve check -recursive", roots, WORDS))
    assert len(re.findall(r"^\| ", doc, re.M)) == 3  # the heading, its rule and the one root that said something
    assert "<summary>50 agree with their lock files</summary>" in doc
    assert "**1 failed; 50 agree with their lock files.**" in doc
    assert "(x/main.tf\\:1)" in doc


def test_one_root_is_a_sentence():
    one = RootReport(".", moves=[Line('module "vpc"', 'constraint edited to "~> 5.0" (main.tf:3)', "main.tf:3")])
    doc = render(Report("tofu-solve check", [one], WORDS))
    assert "**The root module differs from its lock file (1 difference).**" in doc
    assert "| Root |" not in doc
    assert doc.count("main.tf\\:3") == 1  # the place the detail names is not repeated
    assert "**The root module agrees with its lock file.**" in render(Report("tofu-solve check", [RootReport(".")],
                                                                             WORDS))


def test_left_out_roots_are_counted_and_named():
    roots = [RootReport("a"), RootReport("b", left_out="left out by .tofu-solve-exclude:2: reads outputs")]
    doc = render(Report("tofu-solve check -recursive", roots, WORDS))
    assert "**1 root module agrees with its lock file; 1 left out.**" in doc
    assert "| b | left out | | |" in doc


def test_the_job_summary_is_appended_to(tmp_path):
    summary = tmp_path / "step_summary"
    summary.write_text("earlier step\n")
    assert append_to_step_summary("### report\n", {"GITHUB_STEP_SUMMARY": str(summary)}) is None
    assert summary.read_text() == "earlier step\n### report\n"
    assert append_to_step_summary("x", {}) is None
    warning = append_to_step_summary("x", {"GITHUB_STEP_SUMMARY": str(tmp_path / "no" / "dir")})
    assert warning is not None and "could not be written" in warning
