#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Serves processed video over RTSP (gst-rtsp-server): one mount per input,
each running the privacy filter (vjdetect ! satfilter roi-type=face) and
H.264 (x264, zero latency) over RTP. Inputs: camera devices (/dev/video0),
files (played once, at their own rate), or rtsp:// URLs of upstream
cameras. A deployment scales by
running one server per host or per GPU; clients need nothing but RTSP.

    pipelines/serve.py [--address 127.0.0.1] [--port 8554] [--width W --height H]
                       [--user NAME:PASSWORD [--auth basic|digest]]
                       [--tls-cert FILE --tls-key FILE]
                       [--publish LOCATION] [INPUT...]
    -> rtsp://HOST:8554/cam0, /cam1, ... (rtsps:// with TLS)

With no INPUT, the sample clip. It listens on 127.0.0.1 unless --address
says otherwise (--address 0.0.0.0: every interface, said when it starts).
--user requires that name and password of every client (RTSP basic
authentication, or digest with --auth digest; repeat --user for more
users); --tls-cert and --tls-key (PEM) serve RTSP over TLS. An input that
cannot be opened (a file or camera that is not there) is said at start and
again each time a client's request fails on it; the next client retries.

--publish sends each mount's detections out as JSON documents through
metapublish (docs/metapublish.md): mqtt://BROKER[:PORT]/TOPIC ({stream}
becomes HOSTNAME-camN), a file or -.
"""
import argparse
import os
import socket
import sys

import gi
gi.require_version("Gst", "1.0")
gi.require_version("GstRtspServer", "1.0")
gi.require_version("GstRtsp", "1.0")
from gi.repository import Gio, GLib, Gst, GstRtsp, GstRtspServer  # noqa: E402

SAMPLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data",
                      "sample-face.webm")

CHAIN = ("videoconvert ! vjdetect ! satfilter roi-type=face radius=12 ! {publish}videoconvert ! "
         "x264enc tune=zerolatency speed-preset=ultrafast key-int-max=30 ! "
         "rtph264pay name=pay0 pt=96 config-interval=1")


def chain(publish, name):
    pub = "metapublish location=%s stream-name=%s ! " % (publish, name) if publish else ""
    return CHAIN.format(publish=pub)


def source_for(inp, width, height):
    if inp.startswith("/dev/video"):
        src = "v4l2src device=%s" % inp
    elif "://" in inp:
        src = "uridecodebin uri=%s" % inp
    else:   # a file plays once, at its own rate
        src = "uridecodebin uri=%s" % Gst.filename_to_uri(os.path.abspath(inp))
    if width and height:
        src += " ! videoscale ! video/x-raw,width=%d,height=%d" % (width, height)
    return src


def missing(inp):
    """why an input cannot be opened now, or None"""
    if inp.startswith("/dev/video") or "://" not in inp:
        if not os.path.exists(inp):
            return "no such %s" % ("camera" if inp.startswith("/dev/video") else "file")
        if not os.access(inp, os.R_OK):
            return "not readable"
    return None


def authentication(args):
    """clients must give one of the --user names and passwords"""
    auth = GstRtspServer.RTSPAuth()
    token = GstRtspServer.RTSPToken()
    token.set_string(GstRtspServer.RTSP_TOKEN_MEDIA_FACTORY_ROLE, "viewer")
    for spec in args.user:
        name, sep, password = spec.partition(":")
        if not sep or not name:
            raise SystemExit("--user takes NAME:PASSWORD")
        if args.auth == "digest":
            auth.add_digest(name, password, token)
        else:
            auth.add_basic(GstRtspServer.RTSPAuth.make_basic(name, password), token)
    auth.set_supported_methods(GstRtsp.RTSPAuthMethod.DIGEST if args.auth == "digest"
                               else GstRtsp.RTSPAuthMethod.BASIC)
    return auth


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--address", default="127.0.0.1",
                    help="address to listen on (0.0.0.0: every interface)")
    ap.add_argument("--port", default="8554")
    ap.add_argument("--width", type=int, default=0)
    ap.add_argument("--height", type=int, default=0)
    ap.add_argument("--user", action="append", default=[],
                    help="NAME:PASSWORD a client must give (repeatable)")
    ap.add_argument("--auth", choices=["basic", "digest"], default="basic")
    ap.add_argument("--tls-cert", help="PEM certificate: serve rtsps://")
    ap.add_argument("--tls-key", help="PEM key of --tls-cert")
    ap.add_argument("--publish", default="",
                    help="metapublish location for every mount's detections")
    ap.add_argument("inputs", nargs="*", help="cameras, files, rtsp:// URLs (default: the "
                    "sample clip)")
    args = ap.parse_args()
    if not args.inputs:
        args.inputs = [os.path.normpath(SAMPLE)]
    if bool(args.tls_cert) != bool(args.tls_key):
        raise SystemExit("--tls-cert and --tls-key go together")
    Gst.init(None)
    server = GstRtspServer.RTSPServer()
    server.set_address(args.address)
    server.set_service(args.port)
    auth = None
    if args.user or args.tls_cert:
        auth = authentication(args) if args.user else GstRtspServer.RTSPAuth()
        if args.tls_cert:
            try:
                auth.set_tls_certificate(Gio.TlsCertificate.new_from_files(args.tls_cert,
                                                                            args.tls_key))
            except GLib.Error as e:
                raise SystemExit("cannot use the TLS certificate: %s" % e.message)
        if not args.user:   # TLS alone: anyone may watch
            token = GstRtspServer.RTSPToken()
            token.set_string(GstRtspServer.RTSP_TOKEN_MEDIA_FACTORY_ROLE, "viewer")
            auth.set_default_token(token)
        server.set_auth(auth)
    scheme = "rtsps" if args.tls_cert else "rtsp"
    if args.address in ("0.0.0.0", "::"):
        print("serving on EVERY interface (%s)%s" % (args.address, "" if args.user else
              ", with no authentication: anyone who reaches this host may watch"), flush=True)
    mounts = server.get_mount_points()
    for i, inp in enumerate(args.inputs):
        factory = GstRtspServer.RTSPMediaFactory()
        name = "%s-cam%d" % (socket.gethostname(), i)
        factory.set_launch("( %s ! %s )" % (source_for(inp, args.width, args.height),
                                            chain(args.publish, name)))
        factory.set_shared(True)   # one pipeline a mount, whatever the number of clients
        if auth:
            factory.add_role_from_structure(Gst.Structure.new_from_string(
                "viewer, %s=(boolean)true, %s=(boolean)true" % (
                    GstRtspServer.RTSP_PERM_MEDIA_FACTORY_ACCESS,
                    GstRtspServer.RTSP_PERM_MEDIA_FACTORY_CONSTRUCT)))
        why = missing(inp)
        if why:
            print("cam%d: %s: %s; clients get an error until it can be opened (each new "
                  "client retries)" % (i, inp, why), file=sys.stderr, flush=True)
        mounts.add_factory("/cam%d" % i, factory)
        print("%s://%s:%s/cam%d <- %s" % (scheme, args.address, args.port, i, inp), flush=True)

    def on_client(srv, client):
        def on_describe(client, ctx):   # before the media is made: say why it will fail
            path = ctx.uri.abspath if ctx.uri else "?"
            i = int(path[4:]) if path.startswith("/cam") and path[4:].isdigit() else -1
            if 0 <= i < len(args.inputs) and missing(args.inputs[i]):
                print("cam%d: a client asked for %s, which cannot be opened (%s); it will be "
                      "tried again for the next client" % (i, args.inputs[i],
                                                           missing(args.inputs[i])),
                      file=sys.stderr, flush=True)
            return GstRtsp.RTSPStatusCode.OK
        client.connect("pre-describe-request", on_describe)
    server.connect("client-connected", on_client)
    if server.attach(None) == 0:
        print("cannot listen on %s port %s" % (args.address, args.port), file=sys.stderr)
        return 1
    print("listening on %s:%s" % (args.address, args.port), flush=True)   # clients may come
    GLib.MainLoop().run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
