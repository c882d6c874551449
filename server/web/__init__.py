"""The web door (`gother serve --web PORT`): the client in a browser, one process per tab.

Needs the `web` extra (`pip install 'gother-than-thou[web]'`: textual-serve, aiohttp);
the terminal client and the server alone never import it.
"""
