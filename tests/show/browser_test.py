#!/usr/bin/env python3
"""Renders sched2cu's HTML pages in a real headless browser (Debian's chromium) and checks what
it drew: `sched2cu show` of a schedule graph, and the compare --html / bench --html pages of
fixture results (report_pages). For each page a screenshot must not be blank (its pixels vary,
and a colour the page draws its boxes or bars with is among them) and the DOM as the browser
parsed it must hold one node box per node of the graph (show) or one bar per figure of the
fixture and one table row per case (compare, bench). The expected counts come from the JSON
files themselves, never from sched2cu. Standard library only (the PNG decoder uses zlib).

Exits 77 (ctest's skip) when chromium is not installed (tools/install_deps.sh installs it; set
SCHED2CU_CHROMIUM to use another binary). With --docs DIR it also writes the screenshots the
docs show (docs/img): python3 tests/show/browser_test.py ... --docs docs/img
"""
import argparse
import collections
import html.parser
import json
import os
import shutil
import struct
import subprocess
import sys
import zlib

# Colours the pages draw with (src/show/draw.cpp stage 0, src/harness/html_report.cpp generated).
STAGE0 = (0x56, 0xB4, 0xE9)
GENERATED = (0x00, 0x72, 0xB2)


def decode_png(path):
    """(width, height, rows of RGB bytes) of an 8-bit RGB or RGBA PNG, RGBA reduced to RGB."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{path}: not a PNG")
    pos, idat, header = 8, [], None
    while pos < len(data):
        (n,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + n]
        pos += 12 + n
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
    width, height, depth, colour, _, _, interlace = header
    if depth != 8 or colour not in (2, 6) or interlace:
        raise ValueError(f"{path}: PNG kind {depth}-bit colour {colour} interlace {interlace}")
    bpp = 3 if colour == 2 else 4
    raw = zlib.decompress(b"".join(idat))
    stride = width * bpp
    rows, prev = [], bytes(stride)
    high = int.from_bytes(b"\x80" * stride, "big")
    low = int.from_bytes(b"\x7f" * stride, "big")

    def add(a, b):  # bytewise a + b mod 256 on whole rows, as big integers (no carries)
        return ((a & low) + (b & low)) ^ ((a ^ b) & high)

    for y in range(height):
        f, line = raw[y * (stride + 1)], raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)]
        if f == 0:
            out = line
        elif f == 2:  # Up
            up = add(int.from_bytes(line, "big"), int.from_bytes(prev, "big"))
            out = up.to_bytes(stride, "big")
        elif f == 1:  # Sub: a prefix sum per channel, by doubling shifts
            v, shift = int.from_bytes(line, "big"), bpp
            while shift < stride:
                v = add(v, (v >> (8 * shift)))
                shift *= 2
            out = v.to_bytes(stride, "big")
        else:  # Average, Paeth: byte by byte
            cur = bytearray(line)
            for x in range(stride):
                a = cur[x - bpp] if x >= bpp else 0
                b = prev[x]
                if f == 3:
                    cur[x] = (cur[x] + (a + b) // 2) & 255
                elif f == 4:
                    c = prev[x - bpp] if x >= bpp else 0
                    p = a + b - c
                    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                    cur[x] = (cur[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
                else:
                    raise ValueError(f"{path}: PNG filter {f}")
            out = bytes(cur)
        rows.append(out)
        prev = out
    if bpp == 4:
        rows = [bytes(b for i, b in enumerate(r) if i % 4 != 3) for r in rows]
    return width, height, rows


def check_screenshot(path, colour, what):
    """The screenshot is not one colour, its brightness varies, and `colour` is drawn in it."""
    width, height, rows = decode_png(path)
    # Colours and brightness from every fourth row (plenty for a page of text and pictures).
    sample = collections.Counter()
    for r in rows[::4]:
        sample.update(r[i:i + 3] for i in range(0, len(r), 3))
    n = sum(sample.values())
    luma = [(sum(px) / 3, k) for px, k in sample.items()]
    mean = sum(v * k for v, k in luma) / n
    var = sum((v - mean) ** 2 * k for v, k in luma) / n
    drawn, c = 0, bytes(colour)
    for r in rows:
        i = r.find(c)
        while i >= 0:
            drawn += i % 3 == 0
            i = r.find(c, i + 1)
    errors = []
    if len(sample) < 16:
        errors.append(f"{what}: {len(sample)} distinct colours: blank")
    if sample.most_common(1)[0][1] > 0.98 * n:
        errors.append(f"{what}: {sample.most_common(1)[0][1]} of {n} pixels one colour: blank")
    if var < 50:
        errors.append(f"{what}: brightness variance {var:.1f}: blank")
    if drawn < 200:
        errors.append(f"{what}: colour #{c.hex()} drawn in {drawn} pixels (no pictures?)")
    return errors


class Dom(html.parser.HTMLParser):
    """Counts elements by tag and class in the DOM chromium dumped."""

    def __init__(self):
        super().__init__()
        self.counts = {}

    def handle_starttag(self, tag, attrs):
        for cls in (dict(attrs).get("class") or "").split():
            self.counts[(tag, cls)] = self.counts.get((tag, cls), 0) + 1
        self.counts[(tag, "")] = self.counts.get((tag, ""), 0) + 1


def dom_counts(text):
    d = Dom()
    d.feed(text)
    return d.counts


def expected_bars(fixture):
    """Bars per page from the fixture: (compare, bench)."""
    def figures(result, kinds):
        if "error" in result:
            return 0
        return sum(1 for s in result["shapes"] if s.get("timed", True)
                   for k in kinds if s.get(k, {}).get("throughput", 0) > 0)
    compare = bench = 0
    for c in fixture["cases"]:
        sides = {"changed": ["rev", "branch"], "unchanged": ["rev"], "not_on_rev": ["branch"]}
        for side in sides.get(c["compare"], []):
            compare += figures(c[side], ["gen", "hw", "triton"])  # compare --triton
        if "bench" in c:
            bench += figures(c["bench"], ["gen", "hw", "triton", "vendor", "copy"])
    return compare, bench


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sched2cu", required=True)
    ap.add_argument("--report-pages", required=True)
    ap.add_argument("--graph", required=True)
    ap.add_argument("--fixture", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--docs", help="also write the documentation screenshots into this directory")
    args = ap.parse_args()

    chromium = os.environ.get("SCHED2CU_CHROMIUM") or shutil.which("chromium")
    if not chromium:
        print("SKIP: chromium not found (tools/install_deps.sh installs it)")
        return 77
    shutil.rmtree(args.out, ignore_errors=True)
    os.makedirs(args.out)
    show = os.path.join(args.out, "show.html")
    subprocess.run([args.sched2cu, "show", args.graph, "-o", show], check=True)
    subprocess.run([args.report_pages, args.fixture, args.out], check=True)

    # (page, screenshot size, a colour its pictures draw with, the docs' screenshot size). The
    # checked screenshots are tall enough that the pictures sit well inside them: at 900 px the
    # bench page's first bars were 80 px from the bottom edge, and one loaded fresh-clone CI run
    # drew none of them in the frame (wider text wrapping the table taller pushes them out).
    pages = [("show", "1360,1300", STAGE0, "1360,1900"),
             ("compare", "1280,1400", GENERATED, "1280,1000"),
             ("bench", "1440,1600", GENERATED, "1440,1200")]
    # Every browser runs at once, each with a profile directory of its own (chromium refuses
    # to share one).
    jobs = []

    def browser(what, *flags):
        profile = os.path.join(args.out, f"profile-{len(jobs)}")
        cmd = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
               "--no-first-run", "--disable-extensions", "--disable-dev-shm-usage",
               # Screenshot and DOM dump only once the pages' scripts have drawn: without a
               # virtual-time budget chromium may capture at the load event, which on a loaded
               # machine came before the bench page's pictures (a blank, failed check).
               "--virtual-time-budget=10000",
               f"--user-data-dir={profile}", *flags]
        jobs.append((what, subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)))

    for name, size, _, docs_size in pages:
        url = "file://" + os.path.abspath(os.path.join(args.out, name + ".html"))
        # One browser both dumps the DOM it parsed and takes the screenshot.
        browser(f"{name} DOM", "--dump-dom", f"--window-size={size}",
                f"--screenshot={os.path.join(args.out, name + '.png')}", url)
        if args.docs:
            browser(f"{name} docs screenshot", f"--window-size={docs_size}",
                    f"--screenshot={os.path.join(os.path.abspath(args.docs), name + '.png')}",
                    url)
    doms = {}
    for what, p in jobs:
        out, err = p.communicate(timeout=90)
        if p.returncode != 0:
            print(f"FAIL: chromium {what}: exit {p.returncode}\n{err.decode(errors='replace')}")
            return 1
        if what.endswith(" DOM"):
            doms[what.split()[0]] = dom_counts(out.decode("utf-8"))

    errors = []
    graph = json.load(open(args.graph))
    nodes = sum(len(loop["nodes"]) for loop in graph["loops"])
    got = doms["show"].get(("g", "node"), 0)
    if got != nodes:
        errors.append(f"show: {got} node boxes rendered, the graph has {nodes} nodes")
    if doms["show"].get(("section", ""), 0) != len(graph["loops"]):
        errors.append(f"show: {doms['show'].get(('section', ''), 0)} loop sections, "
                      f"the graph has {len(graph['loops'])} loops")
    fixture = json.load(open(args.fixture))
    want = dict(zip(("compare", "bench"), expected_bars(fixture)))
    for name in ("compare", "bench"):
        got = doms[name].get(("g", "bar"), 0)
        if got != want[name]:
            errors.append(f"{name}: {got} bars rendered, the fixture has {want[name]} figures")
        rows = doms[name].get(("tr", ""), 0)
        if rows != len(fixture["cases"]) + 1:
            errors.append(f"{name}: {rows} table rows, want a header and "
                          f"{len(fixture['cases'])} cases")
    for name, _, colour, *_ in pages:
        errors += check_screenshot(os.path.join(args.out, name + ".png"), colour, name)
    for e in errors:
        print("FAIL:", e)
    if not errors:
        print(f"ok: show {nodes} node boxes, compare {want['compare']} bars, bench {want['bench']} "
              "bars; three screenshots drawn")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
