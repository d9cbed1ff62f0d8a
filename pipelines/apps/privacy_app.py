#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Embedding fastvision from Python (PyGObject): the privacy filter
(vjdetect ! roitrack delay=4 ! satfilter roi-type=face) on a file, reading each frame's
region-of-interest metas at an appsink, roitrack's messages from the bus,
changing properties while PLAYING, and printing a summary every second of
video. The same application as privacy_app.c; docs/embedding.md.

    GST_PLUGIN_PATH=build/gst pipelines/apps/privacy_app.py FILE [SECONDS]
"""
import sys
import time

import gi
gi.require_version("Gst", "1.0")
gi.require_version("GstVideo", "1.0")
from gi.repository import GLib, Gst, GstVideo  # noqa: E402


def face_metas(buffer):
    """The buffer's face region-of-interest metas. PyGObject cannot iterate
    metas, so ROI metas are looked up by id: roitrack lists its regions' ids
    (the track ids) in the custom meta FvDetectionMeta, field `face-ids`;
    without it, ids 0, 1, ... are tried (vjdetect numbers its boxes above the
    ids already there, so they are small) until every ROI meta was found."""
    api = GstVideo.VideoRegionOfInterestMeta.get_info().api
    left = buffer.get_n_meta(api)
    mark = buffer.get_custom_meta("FvDetectionMeta")
    ids = mark.get_structure().get_value("face-ids") if mark else None
    candidates = list(ids) if ids is not None and len(ids) == left else range(1 << 16)
    for i in candidates:
        if left <= 0:
            break
        meta = GstVideo.buffer_get_video_region_of_interest_meta_id(buffer, i)
        if meta is None:
            continue
        left -= 1
        if GLib.quark_to_string(meta.roi_type) == "face":
            yield meta


def faces_in(buffer):
    """The face rectangles on the buffer (x, y, width, height)."""
    return [(m.x, m.y, m.w, m.h) for m in face_metas(buffer)]


def main():
    if len(sys.argv) < 2:
        print("usage: privacy_app.py FILE [SECONDS]", file=sys.stderr)
        return 2
    stop_at = float(sys.argv[2]) * Gst.SECOND if len(sys.argv) > 2 else None
    Gst.init(None)
    uri = Gst.filename_to_uri(sys.argv[1])
    try:
        pipe = Gst.parse_launch(
            "uridecodebin uri=%s ! videoconvert ! vjdetect name=detect ! roitrack delay=4 ! "
            "satfilter name=blur roi-type=face radius=12 ! "
            "appsink name=sink sync=false emit-signals=true" % uri)
    except GLib.Error as e:
        print("cannot build the pipeline: %s (is the plugin on GST_PLUGIN_PATH?)" % e.message,
              file=sys.stderr)
        return 1
    detect, blur = pipe.get_by_name("detect"), pipe.get_by_name("blur")
    st = {"frames": 0, "metas": 0, "messages": 0, "msg_faces": 0, "sec_frames": 0,
          "sec_faces": 0, "next": 0, "changed": False, "code": 0, "stopping": False}
    loop = GLib.MainLoop()

    def on_sample(sink):
        sample = sink.emit("pull-sample")
        if sample is None:
            return Gst.FlowReturn.EOS
        buf = sample.get_buffer()
        pts = buf.pts
        # SECONDS of video, exactly: frames at or past it (some are on their
        # way when the EOS goes out) are not counted
        if stop_at is not None and pts != Gst.CLOCK_TIME_NONE and pts >= stop_at:
            if not st["stopping"]:
                pipe.send_event(Gst.Event.new_eos())
            st["stopping"] = True
            return Gst.FlowReturn.OK
        n = len(faces_in(buf))
        st["frames"] += 1
        st["metas"] += n
        st["sec_frames"] += 1
        st["sec_faces"] += n
        if pts != Gst.CLOCK_TIME_NONE and pts >= st["next"]:
            print("%3d s: %d frames, %d faces; total %d frames, %d faces (metas), %d roitrack "
                  "messages" % (pts // Gst.SECOND, st["sec_frames"], st["sec_faces"],
                                st["frames"], st["metas"], st["messages"]), flush=True)
            st["sec_frames"] = st["sec_faces"] = 0
            st["next"] = (pts // Gst.SECOND + 1) * Gst.SECOND
        if not st["changed"] and pts != Gst.CLOCK_TIME_NONE and pts >= 2 * Gst.SECOND:
            blur.set_property("radius", 20)        # applied from the next frame
            detect.set_property("min-neighbors", 4)
            print("at %.2f s: satfilter radius=20, vjdetect min-neighbors=4" % (pts / 1e9))
            st["changed"] = True
        return Gst.FlowReturn.OK

    def on_message(bus, msg):
        s = msg.get_structure() if msg.type == Gst.MessageType.ELEMENT else None
        ts = s.get_value("timestamp") if s is not None and s.has_field("timestamp") else None
        late = stop_at is not None and ts is not None and ts != Gst.CLOCK_TIME_NONE \
            and ts >= stop_at
        if s is not None and s.get_name() == "roitrack" and not late:
            st["messages"] += 1
            faces = msg.get_structure().get_value("faces")
            st["msg_faces"] += len(faces) if faces is not None else 0
        elif msg.type == Gst.MessageType.ERROR:
            err, _ = msg.parse_error()
            print("error from %s: %s" % (msg.src.get_name(), err.message), file=sys.stderr)
            st["code"] = 1
            loop.quit()
        elif msg.type == Gst.MessageType.EOS:
            loop.quit()
        return True

    pipe.get_by_name("sink").connect("new-sample", on_sample)
    bus = pipe.get_bus()
    bus.add_watch(GLib.PRIORITY_DEFAULT, on_message)
    t0 = time.monotonic()
    if pipe.set_state(Gst.State.PLAYING) == Gst.StateChangeReturn.FAILURE:
        st["code"] = 1
    else:
        loop.run()
    secs = time.monotonic() - t0
    pipe.set_state(Gst.State.NULL)
    bus.remove_watch()
    print("done: %d frames in %.1f s (%.0f fps), %d faces in metas, %d in %d roitrack messages"
          % (st["frames"], secs, st["frames"] / secs, st["metas"], st["msg_faces"],
             st["messages"]))
    if st["code"] == 0 and (st["frames"] == 0 or st["messages"] < st["frames"]
                            or st["msg_faces"] != st["metas"] or not st["changed"]):
        print("inconsistent: metas and messages disagree, or nothing ran", file=sys.stderr)
        st["code"] = 1
    return st["code"]


if __name__ == "__main__":
    sys.exit(main())
