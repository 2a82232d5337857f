"""Google's parser (jwm-robotstxt, robots.cc) as the tests' independent reader of a body:
the lines robots.cc's parse callbacks emit, and its pattern escaping restated.

Shared by tests/sites/expect.py, corpus_classes.py, expect_changes.py and
tests/audit/expect_audit.py.
"""

from jwm.robotstxt import googlebot

KINDS = ("ua", "allow", "disallow", "sitemap")


class _Events(googlebot.RobotsParseHandler):
    def __init__(self):
        super().__init__()
        self.events = []

    def HandleRobotsStart(self):
        pass

    def HandleRobotsEnd(self):
        pass

    def HandleUserAgent(self, line, value):
        self.events.append(("ua", line, value))

    def HandleAllow(self, line, value):
        self.events.append(("allow", line, value))

    def HandleDisallow(self, line, value):
        self.events.append(("disallow", line, value))

    def HandleSitemap(self, line, value):
        self.events.append(("sitemap", line, value))

    def HandleUnknownAction(self, line, action, value):
        pass

    def ReportLineMetadata(self, line, metadata):
        pass


def events(body):
    """(kind, line, value) for each user-agent, allow, disallow and sitemap line robots.cc
    emits for `body` (bytes), in file order; kind is one of KINDS. Allow/disallow values
    arrive escaped as robots.cc matches them (MaybeEscapePattern). The bindings decode
    values to str, so a value that is not UTF-8 raises."""
    handler = _Events()
    googlebot.ParseRobotsTxt(body, handler)
    return handler.events


def escape(pattern):
    """robots.cc's MaybeEscapePattern: %-escapes upper-cased, bytes >= 0x80 escaped."""
    raw, out, i = pattern.encode("utf-8"), [], 0
    hexdigits = b"0123456789abcdefABCDEF"
    while i < len(raw):
        if raw[i] == 0x25 and i + 2 < len(raw) and raw[i + 1] in hexdigits and raw[i + 2] in hexdigits:
            out.append("%" + raw[i + 1:i + 3].decode().upper())
            i += 3
        else:
            out.append("%%%02X" % raw[i] if raw[i] >= 0x80 else chr(raw[i]))
            i += 1
    return "".join(out)
