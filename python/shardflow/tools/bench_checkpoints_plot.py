"""The P7 figure as a small SVG (no plotting library needed): throughput of save and load beside
the raw multipart upload and ranged download of the same bytes, and each one's peak memory above
what the process held, against the bound ``part_size * (parallelism + 1)``."""

from __future__ import annotations

from html import escape
from typing import Dict, List

_W, _H, _PAD = 720, 300, 50
_COLORS = {"raw-upload": "#9e9e9e", "save": "#1f77b4", "raw-download": "#bdbdbd", "fetch": "#98df8a", "load": "#2ca02c"}


def _bars(x0: int, title: str, values: Dict[str, float], unit: str, line: float = None,
          line_label: str = "") -> List[str]:
    width, height = (_W - 3 * _PAD) // 2, _H - 2 * _PAD
    top = max(list(values.values()) + ([line] if line else [])) * 1.15 or 1.0
    out = [f'<text x="{x0 + width / 2}" y="{_PAD - 22}" text-anchor="middle" font-weight="bold">{escape(title)}</text>',
           f'<line x1="{x0}" y1="{_PAD + height}" x2="{x0 + width}" y2="{_PAD + height}" stroke="black"/>']
    step = width / len(values)
    for i, (name, value) in enumerate(values.items()):
        h = height * value / top
        x = x0 + i * step + step * 0.15
        out.append(f'<rect x="{x:.1f}" y="{_PAD + height - h:.1f}" width="{step * 0.7:.1f}" height="{h:.1f}" '
                   f'fill="{_COLORS.get(name, "#888")}"/>')
        out.append(f'<text x="{x + step * 0.35:.1f}" y="{_PAD + height - h - 4:.1f}" text-anchor="middle" '
                   f'font-size="11">{value:.0f} {escape(unit)}</text>')
        out.append(f'<text x="{x + step * 0.35:.1f}" y="{_PAD + height + 14}" text-anchor="middle" '
                   f'font-size="11">{escape(name)}</text>')
    if line:
        y = _PAD + height - height * line / top
        out.append(f'<line x1="{x0}" y1="{y:.1f}" x2="{x0 + width}" y2="{y:.1f}" stroke="#d62728" '
                   f'stroke-dasharray="5,3"/>')
        out.append(f'<text x="{x0 + width}" y="{y - 4:.1f}" text-anchor="end" font-size="11" fill="#d62728">'
                   f'{escape(line_label)}</text>')
    return out


def write_svg(result: Dict, path: str) -> None:
    rates = result["mbPerSecond"]
    peaks = {m: v / (1 << 20) for m, v in result["peakExtraBytes"].items()}
    bound = result["boundBytes"] / (1 << 20)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{_W}" height="{_H + 30}" font-family="sans-serif" '
             f'font-size="12">', '<rect width="100%" height="100%" fill="white"/>']
    parts += _bars(_PAD, f"throughput, MB/s ({result['objectMiB']} MiB tensor)", rates, "")
    parts += _bars(2 * _PAD + (_W - 3 * _PAD) // 2, "peak memory above the start, MiB", peaks, "",
                   bound, f"bound {bound:.0f} MiB = part x (parallelism+1)")
    parts.append(f'<text x="{_W / 2}" y="{_H + 15}" text-anchor="middle" font-size="12">save / raw upload = '
                 f'{result["saveVsRawUpload"]:.2f}, fetch / raw download = {result["fetchVsRawDownload"]:.2f}, load = '
                 f'{result["loadVsRawDownload"]:.2f} '
                 f'(medians of {result["rounds"]} rounds; parts of {result["partMiB"]} MiB, '
                 f'{result["parallelism"]} at a time)</text>')
    parts.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(parts) + "\n")
