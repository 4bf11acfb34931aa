"""``python -m indexer.cli``: the provider-indexer command."""

import sys

from indexer.cli.main import main

sys.exit(main())
