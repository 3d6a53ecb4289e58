"""Every message form the learner reads.

raise NotImplementedError("not a site: this is a docstring")
"""
import logging

logger = logging.getLogger(__name__)
log = logging.getLogger("other")


def plain(x):
    raise ValueError("Plain literal message with (parens) and a dot.")


def single_quotes():
    raise RuntimeError('Single quoted: it\'s "escaped" quotes here')


def implicit_concat(n):
    raise ValueError(
        "Implicit concatenation of adjacent literals "  # a comment with ) and "quotes"
        'across lines, # not a comment '
        f"with value {n}"
    )


def plus_concat(name, size):
    raise TypeError("Cannot load model " + name + " with size " + str(size) + " bytes")


def fstring_spec(ratio, width):
    raise ValueError(f"Ratio {ratio:.2f} exceeds limit {width!r:>10} for {{braces}} kept")


def fstring_nested(cfg):
    raise KeyError(f"Missing key {cfg['name']} in {', '.join(sorted(cfg))} config section")


def fstring_debug(tp_size, pp_size):
    assert tp_size % pp_size == 0, f"Expected divisible sizes: {tp_size=}, {pp_size = }"


def percent_tuple(a, b):
    raise RuntimeError("Rank %d failed to reach %s within %.1f%% of budget" % (a, b, 3.0))


def percent_named(req):
    raise RuntimeError("Request %(rid)s timed out after %(secs)d seconds" % {"rid": req, "secs": 1})


def format_call(a, b):
    if a:
        raise ValueError("Shape {0} does not match expected {1} or {name!r:>10} {{literal}}".format(a, b, name=1))
    assert a == b, "Automatic {} numbering with {:>{}} nested spec".format(a, b, 4)


def logger_lazy(rid, err):
    logger.error("Failed to process request %s: %r", rid, err, exc_info=True)


def logger_no_args():
    logger.warning("Disk usage at 100%s of quota, no args given")


def logger_fstring_percent(pct):
    logger.warning(f"Memory usage reached {pct}% of the pool capacity")


def other_receivers(x):
    logging.error("Module-level logging call reports failure %s", x)
    log.warning("Short receiver log reports a warning here")
    self_logger = None
    LOG.critical("Critical failure in the scheduler loop, exiting")
    _logger.exception("Unhandled exception in detokenizer manager")


class Manager:
    def method(self):
        self.logger.warning_once("Deprecated option used once per process")
        raise

    def reraise(self, e):
        try:
            pass
        except Exception as e:
            raise ConnectionError(f"Transfer to peer failed: {e}") from e

    class Inner:
        def deep(self):
            def nested():
                raise argparse.ArgumentTypeError("Nested function raises a dotted class name")
            return nested


def no_message():
    raise NotImplementedError


def no_message_call():
    raise NotImplementedError()


def message_variable(msg):
    raise ValueError(msg)


def assert_no_message(x):
    assert x > 0


def assert_tuple_cond(x):
    assert isinstance(x, (int, float)), "Value must be a number, got something else"


def hash_in_string():
    raise ValueError("Use a #hash and a ) paren inside the string")


def multiline_fstring(n, w):
    raise ValueError(f"""Multi-line message for {n:{w}} items
second line with {n:>{w}.{w}f} and a {{ brace""")


def continuation(x):
    raise \
        OSError("Backslash continued raise statement message")


def one_liner(x): raise ValueError("One-liner function body raises here")


def conditional_one_line(x):
    if x: raise ValueError("Raised in an if on the same line"); y = 1


def raw_strings():
    raise ValueError(r"Raw string keeps \d+ backslash and \n as text")


def bytes_and_prefixes():
    raise ValueError(Rf"Raw f-string {1} with \{{brace and \d")
    raise ValueError(Br"Bytes raw prefix message here \x00")


def paren_message(x):
    raise ValueError(("Parenthesised message " "still a literal"))


async def async_def(x):
    raise TimeoutError(f"Async function timed out after {x} seconds")


def percent_then_concat(x):
    raise RuntimeError("Percent formatted part %s" % x + " followed by concatenation")


def nested_quotes_312(d):
    raise KeyError(f"Same-quote nested string {d["key"]} works in Python 3.12")


def unicode_escapes():
    raise ValueError("Unicode escapes: caf\u00e9 \N{EM DASH} done \x41")


def triple_single(x):
    raise ValueError('''Triple single-quoted message with "quotes" and 'apostrophes' inside''')


class ClassBody:
    if not hasattr(logging, "DEBUG"):
        raise ImportError("Raised in a class body, outside any def")


if __name__ == "__main__":
    raise SystemExit("Module-level raise outside any function")


def tab_indented(x):
	if x:
		logger.warning("Tab indented %x value and %05.2f float", x, 1.0)
	raise ValueError(f"After tab block: {x}")
