"""The README's picture of the demo: the "Exam start, side by side" section of a real demo-report.html,
screenshotted by Debian's headless chromium. Never drawn by hand: run it after a `make demo`.

Usage: picture.py REPORT OUT.png   (make demo-picture: demo-report.html -> docs/demo-exam-start.png)
"""

import os
import subprocess
import sys
import tempfile

SECTION, NEXT = "<h2>Exam start, side by side</h2>", "<h2>Request latency over time</h2>"
CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--hide-scrollbars", "--window-size=948,560"]


def section_page(report):
    """The report's own head (its styles) and the exam-start section: its table and chart."""
    head = report[:report.index("</head>") + len("</head>")]
    return head + "<body>" + report[report.index(SECTION):report.index(NEXT)] + "</body></html>"


def main(report_path, out):
    with open(report_path, encoding="utf-8") as f:
        page = section_page(f.read())
    with tempfile.TemporaryDirectory() as work:
        html = os.path.join(work, "section.html")
        with open(html, "w", encoding="utf-8") as f:
            f.write(page)
        subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={work}/profile", f"--screenshot={os.path.abspath(out)}",
                        f"file://{html}"], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)
    print(f"wrote {out}")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(*sys.argv[1:])
