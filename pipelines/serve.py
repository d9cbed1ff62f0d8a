#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Serves processed video over RTSP (gst-rtsp-server): one mount per input,
each running the privacy filter (vjdetect ! roitrack delay=4 ! satfilter
roi-type=face) and H.264 (x264, zero latency) over RTP. Inputs: camera devices (/dev/video0),
files (looped, at their own rate), or rtsp:// URLs of upstream cameras. A
deployment scales by running one server per host or per GPU; clients need
nothing but RTSP. Every mount is a branch of this one process (one CUDA
context a GPU, shared by the mounts): on a GPU that is what many cameras
should run as, rather than a process each (docs/deployment.md, "One
process per camera on one GPU: MPS").

    pipelines/serve.py [--address 127.0.0.1] [--port 8554] [--width W --height H]
                       [--user NAME:PASSWORD [--auth basic|digest]]
                       [--tls-cert FILE --tls-key FILE] [--publish LOCATION]
                       [--max-clients 64] [--session-timeout 20] [--client-queue 50]
                       [INPUT...]
    -> rtsp://HOST:8554/cam0, /cam1, ... (rtsps:// with TLS)

With no INPUT, the sample clip. It listens on 127.0.0.1 unless --address
says otherwise (--address 0.0.0.0: every interface, said when it starts).
--user requires that name and password of every client (RTSP basic
authentication, or digest with --auth digest; repeat --user for more
users); --tls-cert and --tls-key (PEM) serve RTSP over TLS. An input that
cannot be opened (a file or camera that is not there) is said at start and
again each time a client's request fails on it; the next client retries.

Each input is decoded, filtered and encoded once, by its own pipeline, from
the start (whether watched or not: --publish documents flow all the time);
a file loops, so that a client joining after its end still gets frames.
Each client then gets its own small RTSP pipeline fed from that encoder
through a queue of at most --client-queue frames: a client that stops
reading, or whose network is slow, loses its own frames (it resumes at the
next key frame), never anyone else's. A client that closes its connection
without TEARDOWN loses its sessions 10 s later unless it is still heard of
(RTCP); any session that stops sending keep-alives ends after
--session-timeout seconds; at most --max-clients sessions exist at once
(more are refused with 503).

--publish sends each mount's detections out as JSON documents through
metapublish (docs/metapublish.md): mqtt://BROKER[:PORT]/TOPIC ({stream}
becomes HOSTNAME-camN), a file or -.
"""
import argparse
import os
import socket
import sys
import threading
import time

import gi
gi.require_version("Gst", "1.0")
gi.require_version("GstRtspServer", "1.0")
gi.require_version("GstRtsp", "1.0")
from gi.repository import Gio, GLib, Gst, GstRtsp, GstRtspServer  # noqa: E402

SAMPLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data",
                      "sample-face.webm")

# one a mount: decode, filter and encode once
CHAIN = ("videoconvert ! vjdetect ! roitrack delay=4 ! satfilter roi-type=face radius=12 ! {publish}videoconvert ! "
         "x264enc tune=zerolatency speed-preset=ultrafast key-int-max=30 ! "
         "h264parse config-interval=-1 ! video/x-h264,stream-format=byte-stream,alignment=au ! "
         "appsink name=out sync=true max-buffers=4 drop=true emit-signals=true")
GRACE = 10   # seconds a vanished client's session outlives its connection, unheard of
# one a client: what it is sent
CLIENT = ("( appsrc name=src format=time "
          "caps=video/x-h264,stream-format=byte-stream,alignment=au ! h264parse ! "
          "rtph264pay name=pay0 pt=96 config-interval=-1 )")


def chain(publish, name):
    pub = "metapublish location=%s stream-name=%s ! " % (publish, name) if publish else ""
    return CHAIN.format(publish=pub)


def source_for(inp, width, height):
    if inp.startswith("/dev/video"):
        src = "v4l2src device=%s" % inp
    elif "://" in inp:
        src = "uridecodebin uri=%s" % inp
    else:   # a file plays at its own rate, and loops
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


def log(*what):
    print(*what, file=sys.stderr, flush=True)


# One CUDA context per device for every mount of this server: the first
# pipeline that makes one posts it (have-context) and later pipelines are
# handed it (need-context, and before they start), so that the mounts'
# CUDA elements share the device as one context with overlapping streams
# rather than taking turns as separate contexts (docs/deployment.md).
CUDA_CONTEXT = "gst.cuda.context"
shared_contexts = []


def share_contexts(bus, msg, _data=None):
    if msg.type == Gst.MessageType.HAVE_CONTEXT:
        ctx = msg.parse_have_context()
        if ctx.get_context_type() == CUDA_CONTEXT and ctx not in shared_contexts:
            shared_contexts.append(ctx)
    elif msg.type == Gst.MessageType.NEED_CONTEXT:
        ok, ctype = msg.parse_context_type()
        if ok and ctype == CUDA_CONTEXT:
            for ctx in shared_contexts:   # an element takes the one of its device
                msg.src.set_context(ctx)
    return Gst.BusSyncReply.PASS


class Mount:
    """One input's pipeline (decode, filter, encode) and the clients it feeds:
    each client's own queue, so that one that does not read loses its own
    frames only."""

    def __init__(self, index, inp, args):
        self.index, self.inp = index, inp
        self.desc = "%s ! %s" % (source_for(inp, args.width, args.height),
                                 chain(args.publish, "%s-cam%d" % (socket.gethostname(), index)))
        self.queue = args.client_queue
        self.lock = threading.Lock()
        self.clients = {}     # appsrc -> [waiting for a key frame, monotonic time of its 0]
        self.pipe = None
        self.file = not inp.startswith("/dev/video") and "://" not in inp
        self.gop = []         # (arrival, buffer) since the last key frame
        self.retry = None

    def start(self):
        """starts the input's pipeline if it is not running; False when it cannot"""
        if self.pipe:
            return True
        why = missing(self.inp)
        if why:
            return False
        try:
            pipe = Gst.parse_launch(self.desc)
        except GLib.Error as e:
            log("cam%d: %s: %s" % (self.index, self.inp, e.message))
            return False
        pipe.get_by_name("out").connect("new-sample", self.on_sample)
        bus = pipe.get_bus()
        bus.set_sync_handler(share_contexts, None)
        for ctx in shared_contexts:
            pipe.set_context(ctx)
        bus.add_signal_watch()
        bus.connect("message", self.on_message)
        if pipe.set_state(Gst.State.PLAYING) == Gst.StateChangeReturn.FAILURE:
            bus.remove_signal_watch()
            pipe.set_state(Gst.State.NULL)
            log("cam%d: %s cannot start" % (self.index, self.inp))
            return False
        self.pipe = pipe
        return True

    def stop(self):
        if self.pipe:
            self.pipe.get_bus().remove_signal_watch()
            self.pipe.set_state(Gst.State.NULL)
            self.pipe = None

    def on_message(self, bus, msg):
        if msg.type == Gst.MessageType.EOS:
            # a file loops (a client joining after its end gets frames); a
            # live input that ended is opened again
            if not (self.file and self.pipe.seek_simple(
                    Gst.Format.TIME, Gst.SeekFlags.FLUSH | Gst.SeekFlags.KEY_UNIT, 0)):
                self.restart("ended")
        elif msg.type == Gst.MessageType.ERROR:
            err, _ = msg.parse_error()
            self.restart("error: %s" % err.message)

    def restart(self, why):
        log("cam%d: %s %s; opening it again in 2 s" % (self.index, self.inp, why))
        self.stop()
        if self.retry is None:
            def again():
                self.retry = None
                if not self.start():
                    self.restart("cannot be opened")
                return False
            self.retry = GLib.timeout_add_seconds(2, again)

    def on_sample(self, sink):
        sample = sink.emit("pull-sample")
        if sample is None:
            return Gst.FlowReturn.OK
        buf = sample.get_buffer()
        key = not buf.has_flags(Gst.BufferFlags.DELTA_UNIT)
        now = time.monotonic()
        with self.lock:
            # the frames since the last key frame: a new client starts with
            # them at once instead of waiting up to a GOP for the next one
            if key or len(self.gop) >= 300:
                self.gop = []
            self.gop.append((now, buf))
            for src, state in list(self.clients.items()):
                if state[1] is None:
                    self.start_client(src, state)
                    continue
                if state[0] and not key:
                    continue
                if src.get_property("current-level-buffers") >= self.queue:
                    # this client does not keep up: its frames go until its
                    # queue drains, then it resumes at a key frame
                    state[0] = True
                    continue
                state[0] = False
                self.push(src, state, now, buf)
        return Gst.FlowReturn.OK

    @staticmethod
    def push(src, state, when, buf):
        """each client's stream is timed from its own first frame"""
        out = buf.copy()
        if hasattr(out, "make_writable"):   # gst-python 1.24+: mini objects guard writes
            out.make_writable()
        out.pts = out.dts = int((when - state[1]) * Gst.SECOND)
        out.duration = Gst.CLOCK_TIME_NONE
        src.emit("push-buffer", out)

    def start_client(self, src, state):
        """under the lock: the frames since the last key frame, as they came"""
        if not self.gop or self.gop[0][1].has_flags(Gst.BufferFlags.DELTA_UNIT):
            return   # none yet: from the next key frame
        state[0], state[1] = False, self.gop[0][0]
        for when, buf in self.gop:
            self.push(src, state, when, buf)

    def add_client(self, src):
        with self.lock:
            state = [True, None]   # waiting for a key frame, the time its stream starts
            self.clients[src] = state
            self.start_client(src, state)

    def remove_client(self, src):
        with self.lock:
            self.clients.pop(src, None)



class Guard:
    """What one host, and all hosts together, may hold of the server, so that
    floods are refused before they cost the server its memory, threads or
    file descriptors, and clients already served keep their frames:
      - open connections: --max-connections in all, --max-connections-per-host
        from one address; past them a connection is closed at once;
      - a connection must make a request within --request-timeout s of
        opening (a TLS handshake included), and one without a session must
        make its next within as long (a DESCRIBE whose media waits for a
        SETUP that never comes); else it is closed;
      - media made for a DESCRIBE and not yet in a session: --max-pending in
        all, a quarter of it a host; past that DESCRIBE is answered 503;
      - sessions: --max-clients in all (the session pool),
        --max-clients-per-host from one address; past that SETUP is
        answered 503;
      - wrong credentials: after 5 from one host within a minute, that host
        is answered 503 for 2 s, doubling with each further lock-out up to
        60 s (guessing slows down; other hosts are not affected).
    Refusals are logged, at most one line a reason every 10 s."""

    FAILS = 5

    def __init__(self, args):
        self.args = args
        self.conns = {}        # host -> open connections
        self.pending = {}      # host -> media waiting for SETUP
        self.sessions = {}     # host -> sessions
        self.session_host = {}
        self.failures = {}     # host -> [times of recent failures]
        self.locked = {}       # host -> (until, seconds)
        self.said = {}         # reason -> monotonic time last logged
        self.refused = {}      # reason -> count since last logged
        self.describing = None # the client whose DESCRIBE is being handled

    def note(self, reason, host):
        self.refused[reason] = self.refused.get(reason, 0) + 1
        now = time.monotonic()
        if now - self.said.get(reason, 0) >= 10:
            log("refused %d %s (the last from %s)" % (self.refused[reason], reason, host))
            self.said[reason], self.refused[reason] = now, 0

    @staticmethod
    def add(table, host, n):
        table[host] = table.get(host, 0) + n
        if table[host] <= 0:
            del table[host]

    def connected(self, client):
        """a new connection: False when it was closed at once"""
        conn = client.get_connection()
        host = conn.get_ip() if conn else "?"
        a = self.args
        if sum(self.conns.values()) >= a.max_connections:
            self.note("connections past --max-connections", host)
            return self.close(client, host, counted=False)
        if self.conns.get(host, 0) >= a.max_connections_per_host:
            self.note("connections past --max-connections-per-host", host)
            return self.close(client, host, counted=False)
        self.add(self.conns, host, 1)
        state = {"host": host, "requests": 0, "pending": 0, "sessions": 0, "closed": False}
        client.fv_state = state
        client.connect("closed", self.on_closed)
        # a request, soon (a silent connection or TLS handshake is closed)
        self.arm(client, state)
        return True

    def arm(self, client, state):
        seen = state["requests"]

        def check():
            if not state["closed"] and state["requests"] == seen and state["sessions"] == 0:
                self.note("connections silent for --request-timeout", state["host"])
                self.hang_up(client)
            return False
        GLib.timeout_add_seconds(self.args.request_timeout, check)

    @staticmethod
    def hang_up(client):
        """shuts the connection's socket: the client then sees its peer gone
        and closes as it does for any vanished client (GstRTSPClient.close()
        on a connection that was read from leaves its watch polling a closed
        stream)"""
        conn = client.get_connection()
        sock = conn.get_read_socket() if conn else None
        try:
            if sock:
                sock.shutdown(True, True)
        except GLib.Error:
            pass
        return False

    def close(self, client, host, counted):
        GLib.idle_add(self.hang_up, client)
        return False

    def on_closed(self, client):
        state = client.fv_state
        if state["closed"]:
            return
        state["closed"] = True
        self.add(self.conns, state["host"], -1)
        self.add(self.pending, state["host"], -state["pending"])
        state["pending"] = 0

    def request(self, client, kind):
        """before a request is handled: OK, or the status that refuses it"""
        self.describing = None
        state = getattr(client, "fv_state", None)
        if state is None:
            return GstRtsp.RTSPStatusCode.SERVICE_UNAVAILABLE
        state["requests"] += 1
        self.arm(client, state)
        host, now = state["host"], time.monotonic()
        until, _ = self.locked.get(host, (0, 0))
        if now < until:
            self.note("requests of a host locked out after failed logins", host)
            return GstRtsp.RTSPStatusCode.SERVICE_UNAVAILABLE
        a = self.args
        if kind == "describe":
            if (sum(self.pending.values()) >= a.max_pending
                    or self.pending.get(host, 0) >= max(1, a.max_pending // 4)):
                self.note("DESCRIBEs past --max-pending (media waiting for SETUP)", host)
                return GstRtsp.RTSPStatusCode.SERVICE_UNAVAILABLE
        if kind == "setup" and state["sessions"] == 0 and \
                self.sessions.get(host, 0) >= a.max_clients_per_host:
            self.note("SETUPs past --max-clients-per-host", host)
            return GstRtsp.RTSPStatusCode.SERVICE_UNAVAILABLE
        return GstRtsp.RTSPStatusCode.OK

    def media_made(self, client):
        state = getattr(client, "fv_state", None)
        if state:
            state["pending"] += 1
            self.add(self.pending, state["host"], 1)

    def session_made(self, client, session):
        state = getattr(client, "fv_state", None)
        if not state:
            return
        if state["pending"]:   # its media is in a session now
            state["pending"] -= 1
            self.add(self.pending, state["host"], -1)
        state["sessions"] += 1
        self.session_host[session.get_sessionid()] = state["host"]
        self.add(self.sessions, state["host"], 1)

    def session_gone(self, pool, session):
        host = self.session_host.pop(session.get_sessionid(), None)
        if host:
            self.add(self.sessions, host, -1)

    def login_failed(self, client):
        """credentials given and wrong (GuardedAuth): counted for the host"""
        state = getattr(client, "fv_state", None)
        if not state:
            return
        host, now = state["host"], time.monotonic()
        recent = [t for t in self.failures.get(host, []) if now - t < 60] + [now]
        self.failures[host] = recent
        if len(recent) >= self.FAILS:
            until, last = self.locked.get(host, (0, 1))
            secs = min(60, last * 2) if now < until + 60 else 2
            self.locked[host] = (now + secs, secs)
            self.note("logins: a host locked out after %d failures within a minute"
                      % len(recent), host)


class GuardedAuth(GstRtspServer.RTSPAuth):
    """The server's authentication, telling the guard of every request whose
    credentials were given and refused."""
    guard = None

    def do_authenticate(self, ctx):
        ok = GstRtspServer.RTSPAuth.do_authenticate(self, ctx)
        # credentials that matched none leave the context without a token
        if self.guard and ctx.request and ctx.client and (not ok or ctx.token is None):
            res, value = ctx.request.get_header(GstRtsp.RTSPHeaderField.AUTHORIZATION, 0)
            if res == GstRtsp.RTSPResult.OK and value:
                self.guard.login_failed(ctx.client)
        return ok


def raise_open_files():
    """the soft limit of open files up to the hard one (each connection and
    each client's media take several)"""
    try:
        import resource
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        if hard == resource.RLIM_INFINITY or hard > soft:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard if hard != resource.RLIM_INFINITY
                                                        else max(soft, 65536), hard))
        return resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    except (ImportError, ValueError, OSError):
        return 1024


def over_tcp(session):
    """whether the session's streams go over its RTSP connection (interleaved)"""
    for sm in session.filter(None) or []:
        tr = sm.get_transport(0)
        if tr and tr.get_transport().lower_transport == GstRtsp.RTSPLowerTrans.TCP:
            return True
    return False


def factory_for(mount, auth):
    factory = GstRtspServer.RTSPMediaFactory()
    factory.set_launch(CLIENT)
    factory.set_shared(False)   # each client its own: a slow one holds up nobody
    if auth:
        factory.add_role_from_structure(Gst.Structure.new_from_string(
            "viewer, %s=(boolean)true, %s=(boolean)true" % (
                GstRtspServer.RTSP_PERM_MEDIA_FACTORY_ACCESS,
                GstRtspServer.RTSP_PERM_MEDIA_FACTORY_CONSTRUCT)))

    def on_configure(factory, media):
        src = media.get_element().get_by_name("src")
        mount.add_client(src)
        media.connect("unprepared", lambda m: mount.remove_client(src))
    factory.connect("media-configure", on_configure)
    return factory


def count_media(factory, guard):
    """a DESCRIBE's media waits for its SETUP: counted for the client that
    asked (the factory is asked from the client's own handling)"""
    def on_constructed(factory, media):
        client = getattr(guard, "describing", None)
        guard.describing = None
        if client is not None:
            guard.media_made(client)
    factory.connect("media-constructed", on_constructed)


def authentication(args):
    """clients must give one of the --user names and passwords"""
    auth = GuardedAuth()
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
    ap.add_argument("--max-clients", type=int, default=64,
                    help="sessions at once, over every mount (more are refused)")
    ap.add_argument("--session-timeout", type=int, default=20,
                    help="seconds without keep-alive after which a session ends")
    ap.add_argument("--client-queue", type=int, default=50,
                    help="frames queued for one client before its frames are dropped")
    ap.add_argument("--max-clients-per-host", type=int, default=16,
                    help="sessions from one address (more are refused)")
    ap.add_argument("--max-connections", type=int, default=0,
                    help="open RTSP connections at once (0: a quarter of the open files "
                    "allowed, at most 512); more are closed at once")
    ap.add_argument("--max-connections-per-host", type=int, default=32,
                    help="open RTSP connections from one address")
    ap.add_argument("--max-pending", type=int, default=32,
                    help="media made for a DESCRIBE and waiting for its SETUP, in all "
                    "(a quarter of it a host); more DESCRIBEs are answered 503")
    ap.add_argument("--request-timeout", type=int, default=10,
                    help="seconds a connection has for its first request (TLS handshake "
                    "included), and, without a session, for each next one")
    ap.add_argument("inputs", nargs="*", help="cameras, files, rtsp:// URLs (default: the "
                    "sample clip)")
    args = ap.parse_args()
    if not args.inputs:
        args.inputs = [os.path.normpath(SAMPLE)]
    if bool(args.tls_cert) != bool(args.tls_key):
        raise SystemExit("--tls-cert and --tls-key go together")
    files = raise_open_files()
    if args.max_connections <= 0:
        args.max_connections = max(16, min(512, files // 4))
    for name in ("max_clients", "max_clients_per_host", "max_connections_per_host",
                 "max_pending", "request_timeout"):
        if getattr(args, name) < 1:
            raise SystemExit("--%s takes a number of at least 1" % name.replace("_", "-"))
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
    guard = Guard(args)
    if isinstance(auth, GuardedAuth):
        auth.guard = guard
    cams = []
    for i, inp in enumerate(args.inputs):
        mount = Mount(i, inp, args)
        cams.append(mount)
        why = missing(inp)
        if why:
            log("cam%d: %s: %s; clients get an error until it can be opened (each new client "
                "retries)" % (i, inp, why))
        else:
            mount.start()
        factory = factory_for(mount, auth)
        count_media(factory, guard)
        mounts.add_factory("/cam%d" % i, factory)
        print("%s://%s:%s/cam%d <- %s" % (scheme, args.address, args.port, i, inp), flush=True)
    pool = server.get_session_pool()
    pool.set_max_sessions(args.max_clients)
    pool.connect("session-removed", guard.session_gone)
    # sessions whose clients vanished without a TEARDOWN end when they time out
    GLib.timeout_add_seconds(1, lambda: pool.cleanup() >= 0)

    def on_client(srv, client):
        if not guard.connected(client):
            return

        def on_describe(client, ctx):   # before the media is made: say why it will fail
            refused = guard.request(client, "describe")
            if refused != GstRtsp.RTSPStatusCode.OK:
                return refused
            guard.describing = client   # the media the factory makes next is its
            path = ctx.uri.abspath if ctx.uri else "?"
            i = int(path[4:]) if path.startswith("/cam") and path[4:].isdigit() else -1
            if 0 <= i < len(cams) and not cams[i].start():
                why = missing(args.inputs[i]) or "it does not start"
                log("cam%d: a client asked for %s, which cannot be opened (%s); it will be "
                    "tried again for the next client" % (i, args.inputs[i], why))
                return GstRtsp.RTSPStatusCode.SERVICE_UNAVAILABLE
            return GstRtsp.RTSPStatusCode.OK
        client.connect("pre-describe-request", on_describe)
        for kind in ("options", "setup", "play", "pause", "teardown", "get-parameter",
                     "set-parameter", "announce", "record"):
            client.connect("pre-%s-request" % kind,
                           lambda c, ctx, kind=kind: guard.request(c, kind))
        sessions, tcp = [], set()

        def on_play(c, ctx):   # the transports are known by now (and gone at close)
            if ctx.session and over_tcp(ctx.session):
                tcp.add(ctx.session)

        def on_session(c, session):
            session.set_timeout(args.session_timeout)
            sessions.append(session)
            guard.session_made(c, session)

        def on_closed(c):
            # a client that vanished without TEARDOWN: its sessions end once
            # nothing was heard of them for GRACE s (TCP ones never hear
            # again; a UDP client that closed its RTSP connection on purpose
            # goes on sending RTCP, which keeps its session)
            for session in sessions:
                if session in tcp:   # its data went over that connection: gone with it
                    pool.remove(session)
                    continue
                left = session.next_timeout_usec(GLib.get_monotonic_time())

                def gone(session=session, left=left):
                    now = session.next_timeout_usec(GLib.get_monotonic_time())
                    if now <= left - GRACE * 1000 + 500:   # (ms) not touched since
                        pool.remove(session)
                    return False
                GLib.timeout_add_seconds(GRACE, gone)
            sessions.clear()
            tcp.clear()
        client.connect("play-request", on_play)
        client.connect("new-session", on_session)
        client.connect("closed", on_closed)
    server.connect("client-connected", on_client)
    if server.attach(None) == 0:
        print("cannot listen on %s port %s" % (args.address, args.port), file=sys.stderr)
        return 1
    users = sorted({spec.split(":", 1)[0] for spec in args.user})
    access = ("clients must authenticate (%s, %d user%s: %s)" % (
        args.auth, len(users), "" if len(users) == 1 else "s", ", ".join(users))
        if args.user else "no authentication: anyone who reaches the port may watch")
    tls = "TLS on (rtsps://)" if args.tls_cert else "TLS off"
    # clients may come
    print("listening on %s:%s; %s; %s" % (args.address, args.port, access, tls), flush=True)
    GLib.MainLoop().run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
