from __future__ import annotations

from review_agent.cli.entry import main

raise SystemExit(main())
