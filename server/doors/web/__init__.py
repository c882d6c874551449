"""The web door (`gother serve --web PORT`): the client in a browser, one process per tab.

Needs the `web` extra (`pip install -e '.[web]'` in a clone, `pip install 'gother-than-thou[web]'`
otherwise: textual-serve, aiohttp); the terminal client and the server alone never import it.
"""
