#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The full live chain on the sample clip, looped, for MINUTES minutes:
vjdetect -> satfilter roi-type=face -> fftconvolve -> satfilter threshold
-> autofill, paced at the clip's frame rate (sync=true) as a camera would
be. The process's RSS is sampled every 30 s; growth past the first minute
(beyond allocator noise: 8 MB or 3%) fails the run. Run by tests/soak.sh."""
import sys
import time

import gi
gi.require_version("Gst", "1.0")
from gi.repository import GLib, Gst  # noqa: E402

CHAIN = ("filesrc location={clip} ! decodebin ! videoconvert ! video/x-raw,format=I420 ! "
         "vjdetect name=detect ! satfilter roi-type=face radius=12 ! "
         "fftconvolve gaussian-sigma=3 ! videoconvert ! video/x-raw,format=GRAY8 ! "
         "satfilter mode=threshold radius=15 sensitivity=0.15 ! autofill ! "
         "fakesink name=sink sync=true")


def rss_mb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    return 0.0


def main():
    minutes = float(sys.argv[1]) if len(sys.argv) > 1 else 5
    clip = sys.argv[2] if len(sys.argv) > 2 else "tests/data/sample-face.webm"
    Gst.init(None)
    pipe = Gst.parse_launch(CHAIN.format(clip=clip))
    loop = GLib.MainLoop()
    state = {"frames": 0, "faces": 0, "loops": 0, "error": None, "samples": []}
    start = time.monotonic()

    def on_frame(pad, info):
        state["frames"] += 1
        return Gst.PadProbeReturn.OK
    pipe.get_by_name("sink").get_static_pad("sink").add_probe(Gst.PadProbeType.BUFFER, on_frame)

    def on_message(bus, msg):
        t = msg.type
        if t == Gst.MessageType.ERROR:
            err, dbg = msg.parse_error()
            state["error"] = err.message
            loop.quit()
        elif t == Gst.MessageType.SEGMENT_DONE or t == Gst.MessageType.EOS:
            # loop the clip: a segment seek back to the start, no flush
            state["loops"] += 1
            pipe.seek(1.0, Gst.Format.TIME, Gst.SeekFlags.SEGMENT, Gst.SeekType.SET, 0,
                      Gst.SeekType.NONE, -1)
        elif t == Gst.MessageType.ELEMENT and msg.get_structure().get_name() == "vjdetect":
            faces = msg.get_structure().get_value("faces")
            state["faces"] += len(faces) if faces is not None else 0
        return True

    def sample():
        elapsed = (time.monotonic() - start) / 60.0
        state["samples"].append((elapsed, rss_mb(), state["frames"]))
        print("%6.1f min  RSS %7.1f MB  frames %7d  faces %7d  loops %4d" % (
            elapsed, state["samples"][-1][1], state["frames"], state["faces"], state["loops"]),
            flush=True)
        if elapsed >= minutes:
            loop.quit()
            return False
        return True

    bus = pipe.get_bus()
    bus.add_signal_watch()
    bus.connect("message", on_message)
    pipe.set_state(Gst.State.PAUSED)
    pipe.get_state(Gst.CLOCK_TIME_NONE)
    pipe.seek(1.0, Gst.Format.TIME, Gst.SeekFlags.FLUSH | Gst.SeekFlags.SEGMENT,
              Gst.SeekType.SET, 0, Gst.SeekType.NONE, -1)
    pipe.set_state(Gst.State.PLAYING)
    GLib.timeout_add_seconds(30, sample)
    loop.run()
    pipe.set_state(Gst.State.NULL)
    if state["error"]:
        print("soak: the pipeline failed: %s" % state["error"])
        return 1
    samples = state["samples"]
    after = [s for s in samples if s[0] >= 1.0]
    if len(after) < 2:
        print("soak: too short to judge (run at least 2 minutes)")
        return 0 if minutes < 2 else 1
    base = after[0][1]
    peak = max(s[1] for s in after)
    slack = max(8.0, 0.03 * base)
    fps = samples[-1][2] / (samples[-1][0] * 60.0)
    print("soak: %.1f min, %d frames (%.1f fps), %d faces, %d loops of the clip; RSS %.1f MB "
          "at 1 min, %.1f MB at most after, %.1f MB at the end" % (
              samples[-1][0], samples[-1][2], fps, state["faces"], state["loops"], base, peak,
              samples[-1][1]))
    if peak > base + slack:
        print("soak: FAIL: RSS grew %.1f MB past the first minute (allowed %.1f)" % (
            peak - base, slack))
        return 1
    print("soak: PASS: RSS flat past the first minute (within %.1f MB)" % slack)
    return 0


if __name__ == "__main__":
    sys.exit(main())
