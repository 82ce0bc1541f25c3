"""Screenshot of a report page for the README: ``python tests/reports/make_screenshot.py DIR/index.html OUT.png``.

Top of the page (banner, summary table) at laptop width, palette-quantised to stay small.
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

from PIL import Image

sys.path.insert(0, str(Path(__file__).parent))
from report_browser import Browser  # noqa: E402

MAX_BYTES = 300_000


def main(page: str, out: str, width: int = 1000, height: int = 1150) -> int:
    tmp = Path(out).with_suffix(".raw.png")
    with Browser() as b:
        b.open(Path(page).resolve().as_uri(), width=width, height=height)
        errors = b.errors()
        b.screenshot(tmp)
    img = Image.open(tmp).convert("RGB")
    tmp.unlink()
    for colours in (128, 64, 32):
        buf = io.BytesIO()
        img.quantize(colors=colours, method=Image.Quantize.MEDIANCUT).save(buf, format="PNG", optimize=True)
        if buf.tell() <= MAX_BYTES:
            break
    Path(out).write_bytes(buf.getvalue())
    print(f"{out}: {buf.tell()} bytes, {colours} colours; console errors: {errors or 'none'}")
    return 0 if not errors else 1


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
