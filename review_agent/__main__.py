from __future__ import annotations

from review_agent.cli import main

raise SystemExit(main())
