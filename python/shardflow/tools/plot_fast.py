"""Bar charts (PNG, drawn with Pillow) of bench_fast results: MB/s of every path beside the raw
parallel GET of the same run, one panel per result file.

    python3 -m shardflow.tools.plot_fast OUT.png RESULT.json [RESULT.json ...]
"""

from __future__ import annotations

import json
import os
import sys

from PIL import Image, ImageDraw

BARS = [("raw GET", None), ("batch cold", "batch_cold"), ("batch warm", "batch_warm"),
        ("no cache", "batch_no_cache"), ("DL 0", "dataloader_0_workers"), ("DL 2", "dataloader_2_workers"),
        ("DL 4", "dataloader_4_workers"), ("WebDataset", "webdataset"), ("Streaming", "mosaic_streaming")]
COLORS = {"raw GET": (90, 90, 90), "WebDataset": (200, 120, 60), "Streaming": (170, 70, 70)}


def _values(result):
    out = []
    for label, key in BARS:
        if key is None:
            out.append((label, result["raw_parallel_get_mb_s"], 1.0))
            continue
        figures = result.get("paths", {}).get(key) or result.get("peers", {}).get(key)
        if figures:
            out.append((label, figures["mb_s"], figures["ratio_to_raw"]))
    return out


def plot(out_path, paths):
    panel_w, panel_h, margin = 760, 300, 50
    image = Image.new("RGB", (panel_w, panel_h * len(paths)), "white")
    draw = ImageDraw.Draw(image)
    for p, path in enumerate(paths):
        with open(path) as f:
            result = json.load(f)
        values = _values(result)
        top = p * panel_h
        title = (f"{os.path.basename(path)[:-5]}: {result['samples']} samples, {result['bytes'] / 1e6:.0f} MB "
                 f"(MB/s; ratio to the raw GET of the same round; load {result['load_average_1m']} on "
                 f"{result['cpus']} CPUs)")
        draw.text((10, top + 8), title, fill="black")
        peak = max(v for _, v, _ in values) or 1
        width = (panel_w - 2 * margin) // len(values)
        base = top + panel_h - 40
        for i, (label, value, ratio) in enumerate(values):
            height = int((panel_h - 90) * value / peak)
            x = margin + i * width
            draw.rectangle([x + 6, base - height, x + width - 6, base], fill=COLORS.get(label, (60, 110, 180)))
            draw.text((x + 6, base - height - 24), f"{value:.0f}", fill="black")
            draw.text((x + 6, base - height - 12), f"x{ratio:.2f}", fill="black")
            draw.text((x + 4, base + 6), label, fill="black")
        draw.line([margin, base, panel_w - margin, base], fill="black")
    image.save(out_path)


if __name__ == "__main__":
    plot(sys.argv[1], sys.argv[2:])
