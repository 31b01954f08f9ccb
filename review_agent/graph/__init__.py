"""The declarative review graph: spec (YAML -> records), validate, when DSL, engine, mermaid."""
