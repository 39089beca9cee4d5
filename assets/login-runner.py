"""Rampart's login-script runner (src/engines/web/login/run-login.ts starts it; docs/login-scripts.md).

Runs a user's Selenium login script against ONE headless Chromium that Rampart configures (its
traffic through Rampart's egress proxy, a fresh profile), then writes the session the login
produced (cookies, localStorage, sessionStorage of the current page) as JSON to a result file, and
quits the browser. The script's own stdout and stderr are left alone: the result never mixes with
them.

Usage: python3 login-runner.py CONFIG_JSON
CONFIG_JSON: {"script", "result", "target_url", "proxy", "profile", "chromium", "chromedriver", "no_sandbox"}

Exit codes: 0 the script ran and the result was written; 1 the script failed (its traceback on
stderr); 2 bad usage; 3 Selenium is missing; 4 the browser could not be started.
"""
import json
import os
import runpy
import sys
import traceback
import types

EXIT_SCRIPT_FAILED = 1
EXIT_USAGE = 2
EXIT_NO_SELENIUM = 3
EXIT_NO_BROWSER = 4


def main():
    if len(sys.argv) != 2:
        print("usage: login-runner.py CONFIG_JSON", file=sys.stderr)
        return EXIT_USAGE
    config = json.loads(sys.argv[1])
    try:
        from selenium import webdriver  # noqa: F401
    except ImportError as error:
        print(f"Selenium is not installed for {sys.executable}: {error}", file=sys.stderr)
        return EXIT_NO_SELENIUM
    try:
        driver = start_browser(config, sandbox=not config.get("no_sandbox"))
    except Exception as error:  # the driver's own message says what is missing
        if config.get("no_sandbox"):
            print(f"The browser could not be started: {describe(error)}", file=sys.stderr)
            return EXIT_NO_BROWSER
        # A container without user namespaces cannot give Chromium its sandbox.
        try:
            driver = start_browser(config, sandbox=False)
        except Exception as retry_error:
            print(f"The browser could not be started: {describe(retry_error)}", file=sys.stderr)
            return EXIT_NO_BROWSER
        print(f"Rampart: Chromium did not start with its sandbox ({type(error).__name__}); it runs without.", file=sys.stderr)
    real_quit = driver.quit
    try:
        keep_session_open(driver)
        patch_webdriver(driver)
        code = run_script(config["script"], driver, config["target_url"])
        if code != 0:
            return code
        write_result(driver, config["result"])
        return 0
    finally:
        try:
            real_quit()
        except Exception:
            pass


def describe(error):
    """A WebDriver error's message without the driver's native stack trace."""
    return f"{type(error).__name__}: {getattr(error, 'msg', None) or error}"


def start_browser(config, sandbox):
    """The one browser: headless Chromium, a fresh profile, every request through the proxy."""
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.chrome.webdriver import WebDriver

    options = Options()
    options.binary_location = config["chromium"]
    arguments = [
        "--headless=new",
        f"--user-data-dir={config['profile']}",
        f"--proxy-server={config['proxy']}",
        # Chromium sends loopback directly unless told otherwise: "<-loopback>" removes that
        # implicit bypass, so even 127.0.0.1 goes through the guard.
        "--proxy-bypass-list=<-loopback>",
        # Scanned sites often have self-signed certificates; Rampart's own client accepts them too.
        "--ignore-certificate-errors",
        "--disable-quic",
        "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
        "--webrtc-ip-handling-policy=disable_non_proxied_udp",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-default-apps",
        "--disable-extensions",
        "--disable-sync",
        "--disable-dev-shm-usage",
        "--no-first-run",
        "--no-default-browser-check",
        "--window-size=1280,900",
    ]
    if not sandbox:
        arguments.append("--no-sandbox")
    for argument in arguments:
        options.add_argument(argument)
    options.set_capability("acceptInsecureCerts", True)
    return WebDriver(service=Service(executable_path=config["chromedriver"]), options=options)


def keep_session_open(driver):
    """quit() and closing the last window end the session: they wait until the cookies are read."""
    real_close = driver.close

    def close():
        if len(driver.window_handles) > 1:
            real_close()

    driver.quit = lambda *args, **kwargs: None
    driver.close = close


def patch_webdriver(driver):
    """A script that builds its own browser gets Rampart's: same headless, proxied Chromium."""
    from selenium import webdriver

    def shared_driver(*args, **kwargs):
        return driver

    def other_browser(name):
        def make(*args, **kwargs):
            print(f"Rampart: webdriver.{name}() was given Rampart's headless Chromium.", file=sys.stderr)
            return driver
        return make

    def remote(*args, **kwargs):
        raise RuntimeError(
            "webdriver.Remote is not supported: login scripts run against Rampart's own headless "
            "Chromium; use the provided `driver` or webdriver.Chrome()."
        )

    webdriver.Chrome = shared_driver
    sys.modules["selenium.webdriver.chrome.webdriver"].WebDriver = shared_driver
    for name in ("Firefox", "Edge", "ChromiumEdge", "Safari", "Ie", "WebKitGTK", "WPEWebKit"):
        if hasattr(webdriver, name):
            setattr(webdriver, name, other_browser(name))
    webdriver.Remote = remote


SCRIPT_NAME = "login_script.py"


def run_script(path, driver, target_url):
    """Runs the script as __main__, then a pytest-style test class (a Selenium IDE export) if it defines one."""
    if "pytest" not in sys.modules:
        try:
            import pytest  # noqa: F401
        except ImportError:
            # Selenium IDE exports import pytest and use nothing of it but its name.
            sys.modules["pytest"] = types.ModuleType("pytest")
    given = {"driver": driver, "target_url": target_url, "TARGET_URL": target_url}
    # The script sees itself as the program (unittest.main() reads sys.argv), not the runner's config.
    sys.argv = [path]
    try:
        namespace = runpy.run_path(path, init_globals=given, run_name="__main__")
        for cls in test_classes(namespace):
            run_test_class(cls)
    except SystemExit as exit:
        # unittest.main() (False on success) and sys.exit() end here: 0, None or False is success.
        if exit.code in (0, None, False):
            return 0
        print(f"The login script exited with {exit.code!r}.", file=sys.stderr)
        return EXIT_SCRIPT_FAILED
    except BaseException as error:
        print_script_traceback(error)
        return EXIT_SCRIPT_FAILED
    return 0


def test_classes(namespace):
    """Plain classes named Test* with test_* methods (pytest style; unittest ones run with unittest.main())."""
    import unittest

    found = []
    for value in list(namespace.values()):
        if not isinstance(value, type) or not value.__name__.startswith("Test") or issubclass(value, unittest.TestCase):
            continue
        if value.__module__ != "__main__":
            continue
        if any(name.startswith("test") and callable(member) for name, member in vars(value).items()):
            found.append(value)
    return found


def run_test_class(cls):
    instance = cls()
    if hasattr(instance, "setup_method"):
        instance.setup_method(None)
    for name, member in list(vars(cls).items()):
        if name.startswith("test") and callable(member):
            getattr(instance, name)()
    # teardown_method usually quits the browser: quit waits (keep_session_open) until the session is read.
    if hasattr(instance, "teardown_method"):
        instance.teardown_method(None)


def print_script_traceback(error):
    """The traceback from the script's first frame on: the runner's own frames say nothing to its author."""
    tb = error.__traceback__
    while tb is not None and os.path.basename(tb.tb_frame.f_code.co_filename) != SCRIPT_NAME:
        tb = tb.tb_next
    traceback.print_exception(type(error), error, tb if tb is not None else error.__traceback__, file=sys.stderr)


STORAGE_SCRIPT = """
const read = (name) => {
  const out = {};
  try {
    const storage = window[name];
    for (let i = 0; i < storage.length; i++) { const key = storage.key(i); out[key] = storage.getItem(key); }
  } catch (e) { /* no storage on this page (about:blank, data: URLs) */ }
  return out;
};
return { local: read('localStorage'), session: read('sessionStorage') };
"""


def write_result(driver, path):
    try:
        # Every cookie of the browser (get_cookies() gives only the current page's); Rampart keeps those of the target.
        cookies = driver.execute_cdp_cmd("Network.getAllCookies", {}).get("cookies", [])
        cookies = [cdp_cookie(c) for c in cookies]
    except Exception:
        cookies = driver.get_cookies()
    storage = driver.execute_script(STORAGE_SCRIPT) or {}
    result = {
        "cookies": cookies,
        "local": storage.get("local") or {},
        "session": storage.get("session") or {},
        "url": driver.current_url,
    }
    with open(path, "w", encoding="utf-8") as out:
        json.dump(result, out)


def cdp_cookie(c):
    """A DevTools cookie in the shape of Selenium's get_cookies()."""
    cookie = {
        "name": c["name"],
        "value": c["value"],
        "domain": c.get("domain"),
        "path": c.get("path", "/"),
        "secure": bool(c.get("secure")),
        "httpOnly": bool(c.get("httpOnly")),
    }
    if not c.get("session") and c.get("expires", -1) > 0:
        cookie["expiry"] = int(c["expires"])
    if c.get("sameSite"):
        cookie["sameSite"] = c["sameSite"]
    return cookie


if __name__ == "__main__":
    sys.exit(main())
