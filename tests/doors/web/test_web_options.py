"""`gother serve --web`'s options: access is what the host chose, as at the SSH door."""

from __future__ import annotations

from pathlib import Path

import pytest

from gother_tui.cli import build_parser
from gother_tui.cli.doors.web import options as web_options
from gother_tui.cli.doors.web import web_extra_install


@pytest.mark.parametrize(
    ("argv", "error"),
    [
        (["--host", "0.0.0.0", "--web", "8080"], "needs a password"),
        (["--web", "8080", "--web-open", "--web-password", "x"], "--web-open lets any browser"),
        (["--web-open"], "need --web PORT"),
        (["--web-max", "5", "--web-origin", "https://games.example.org"], "need --web PORT"),
        (["--web-trust-proxy", "127.0.0.1"], "need --web PORT"),
    ],
)
def test_serve_refuses_a_web_door_without_one_access_rule(argv, error, capsys):
    args = build_parser().parse_args(["serve", *argv])
    with pytest.raises(SystemExit):
        args.run(args, build_parser())
    assert error in capsys.readouterr().err


def test_the_trusted_proxy_is_an_address_and_reaches_the_door(capsys):
    parser = build_parser()
    with pytest.raises(SystemExit):
        parser.parse_args(["serve", "--web", "8080", "--web-trust-proxy", "nginx"])
    assert "'nginx': give an IP address" in capsys.readouterr().err
    args = parser.parse_args(
        ["serve", "--web", "8080", "--web-trust-proxy", "::1", "--web-per-address", "2"]
    )
    options = web_options(args, parser, None)
    assert options is not None
    assert (options["trust_proxy"], options["per_address"]) == ("::1", 2)
    default = web_options(parser.parse_args(["serve", "--web", "8080"]), parser, None)
    assert default is not None
    assert (default["trust_proxy"], default["per_address"]) == (None, 4)


def test_the_web_password_comes_from_a_file_the_environment_or_the_server(tmp_path, monkeypatch):
    parser = build_parser()
    secret = tmp_path / "web-password"
    secret.write_text("from-a-file\n")
    by_file = parser.parse_args(["serve", "--web", "8080", "--web-password-file", str(secret)])
    assert web_options(by_file, parser, "server's")["password"] == "from-a-file"
    plain = parser.parse_args(["serve", "--web", "8080"])
    assert web_options(plain, parser, "server's")["password"] == "server's"
    assert web_options(plain, parser, None)["password"] is None
    monkeypatch.setenv("GOTHER_WEB_PASSWORD", "from-env")
    assert web_options(plain, parser, "server's")["password"] == "from-env"
    monkeypatch.delenv("GOTHER_WEB_PASSWORD")
    everywhere = parser.parse_args(["serve", "--host", "0.0.0.0", "--web", "8080", "--web-open"])
    assert web_options(everywhere, parser, None)["password"] is None


def test_without_the_web_extra_the_error_names_the_install_command_for_this_install(
    tmp_path, monkeypatch, capsys
):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name == "textual_serve" else real(name, *a),
    )
    args = build_parser().parse_args(["serve", "--web", "8080"])
    with pytest.raises(SystemExit):
        args.run(args, build_parser())
    clone = Path(__file__).resolve().parents[3]  # these tests run from a clone
    assert f"--web needs the web extra: pip install -e '.[web]' (in {clone})" in (
        capsys.readouterr().err
    )
    (tmp_path / "gother_tui").mkdir()  # an installed wheel: no pyproject beside its packages
    assert web_extra_install(tmp_path) == "pip install 'gother-than-thou[web]'"
