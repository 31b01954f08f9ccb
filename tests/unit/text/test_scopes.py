"""text.scopes: the enclosing scopes of a line, their signatures and a function's end, in the
languages a review reads (each case a formatted file as its own formatter writes it)."""

from __future__ import annotations

import pytest

from review_agent.text.scopes import (
    enclosing,
    function_end,
    is_container,
    signature_end,
    string_lines,
)

# (language, source, the marked line's enclosing headers outermost first, the innermost
# function's last line); the marked line ends with "<-"
CASES = [
    ("python", '''\
class Registry:
    """Keeps plugins."""

    def register(
        self,
        name: str,
    ) -> None:
        if name in self.names:
            raise KeyError(name)
        with self.lock:
            self.names.add(name)  # <-

    def other(self):
        pass
''', ["class Registry:", "def register("], 11),
    ("javascript", '''\
export class Cart {
  constructor(items) {
    this.items = items;
  }

  total(discount) {
    if (discount) {
      return 0;
    } else {
      return this.items.reduce((sum, item) => {
        return sum + item.price; // <-
      }, 0);
    }
  }
}
''', ["export class Cart {", "total(discount) {",
      "return this.items.reduce((sum, item) => {"], 12),
    ("typescript", '''\
export const handler = async (
  req: Request,
  res: Response,
): Promise<void> => {
  const body = await req.json();
  res.send(body); // <-
};
''', ["export const handler = async ("], 7),
    ("go", '''\
package server

type Server struct {
	mux *Mux
}

func (s *Server) Routes(r *Router) {
	r.GET("/ping", func(c *Context) {
		c.String(200, "pong") // <-
	})
}
''', ["func (s *Server) Routes(r *Router) {", 'r.GET("/ping", func(c *Context) {'], 10),
    ("java", '''\
package cart;

public class Cart {
    private final List<Item> items;

    @Override
    public int total(
            int discount) {
        int sum = 0;
        for (Item item : items) {
            sum += item.price(); // <-
        }
        return sum - discount;
    }
}
''', ["public class Cart {", "public int total("], 14),
    ("ruby", '''\
module Shop
  class Cart
    def total(discount)
      items.each do |item|
        sum += item.price # <-
      end
      sum - discount
    end
  end
end
''', ["module Shop", "class Cart", "def total(discount)", "items.each do |item|"], 6),
    ("rust", '''\
impl Cart {
    pub fn total(&self, discount: u32) -> u32 {
        let sum: u32 = self
            .items
            .iter()
            .map(|item| {
                item.price // <-
            })
            .sum();
        sum - discount
    }
}
''', ["impl Cart {", "pub fn total(&self, discount: u32) -> u32 {", ".map(|item| {"], 8),
]


def _lines(source: str) -> tuple[dict[int, str], int]:
    lines = dict(enumerate(source.split("\n"), 1))
    (marked,) = [n for n, t in lines.items() if "<-" in t]
    return lines, marked


@pytest.mark.parametrize(("language", "source", "headers", "end"), CASES,
                         ids=[c[0] for c in CASES])
def test_every_enclosing_scope_is_found(language: str, source: str, headers: list[str],
                                        end: int) -> None:
    lines, marked = _lines(source)
    found = enclosing(lines.get, marked, language)
    assert [lines[n].strip() for n in reversed(found)] == headers
    assert function_end(lines.get, found[0], language) == end


def test_a_wrapped_signature_ends_where_its_body_opens() -> None:
    lines, marked = _lines(CASES[0][1])
    (fn, cls) = enclosing(lines.get, marked, "python")
    assert signature_end(lines.get, fn, "python") == 7  # `) -> None:`
    assert is_container(lines[cls]) and not is_container(lines[fn])
    java, marked = _lines(CASES[4][1])
    (method, _) = enclosing(java.get, marked, "java")
    assert java[signature_end(java.get, method, "java")].strip() == "int discount) {"
    ts, marked = _lines(CASES[2][1])
    (arrow,) = enclosing(ts.get, marked, "typescript")
    assert ts[signature_end(ts.get, arrow, "typescript")].strip() == "): Promise<void> => {"


def test_top_level_and_unknown_languages_have_no_scope() -> None:
    lines = dict(enumerate("x = 1\ny = 2\n".split("\n"), 1))
    assert enclosing(lines.get, 2, "python") == []
    md = dict(enumerate("# Title\n\n  text\n".split("\n"), 1))
    assert enclosing(md.get, 3, "markdown") == []


def test_one_line_functions_end_on_their_line() -> None:
    py = dict(enumerate("def f(): return 1\nx = f()\n".split("\n"), 1))
    assert function_end(py.get, 1, "python") == 1
    go = dict(enumerate("func f() int { return 1 }\nvar x = f()\n".split("\n"), 1))
    assert function_end(go.get, 1, "go") == 1


def test_a_function_past_what_is_known_has_no_end() -> None:
    lines = {1: "def f():", 2: "    a = 1", 3: "    b = 2"}
    assert function_end(lines.get, 1, "python") is None
    assert function_end({1: "def f():", 2: "    a = 1", 3: "x"}.get, 1, "python") == 2
    assert function_end({1: "def f():", **{k: "    a" for k in range(2, 50)}, 50: "x"}.get,
                        1, "python", limit=10) is None


def test_lines_inside_a_multi_line_string_open_no_scope() -> None:
    go = '''func TestDocs(t *testing.T) {
	expected := `
Usage: app [options]
`
	check(t, expected) // <-
}
'''
    lines, marked = _lines(go)
    inside = string_lines(lines.get, len(lines), "go")
    assert 3 in inside and 5 not in inside
    assert enclosing(lines.get, marked, "go") == []  # misled by the column-0 text
    assert [lines[n] for n in enclosing(lines.get, marked, "go", inside)] == [
        "func TestDocs(t *testing.T) {"]
    py = 'def usage():\n    """Print usage.\n\nOptions:\n  -v  verbose\n"""\n    print(1)  # <-\n' \
         "    return 0\n"
    lines, marked = _lines(py)
    inside = string_lines(lines.get, len(lines), "python")
    assert enclosing(lines.get, marked, "python", inside) == [1]
    assert function_end(lines.get, 1, "python", eof=len(lines), inside=inside) == 8


def test_go_labels_and_private_methods_keep_their_function() -> None:
    go = "func (n *node) walk(path string) {\nwalk:\n\tfor {\n\t\tpath = path[1:] // <-\n\t}\n}\n"
    lines, marked = _lines(go)
    assert [lines[n] for n in enclosing(lines.get, marked, "go")] == [
        "func (n *node) walk(path string) {"]
    ts = "class Ky {\n  async #fetch(): Promise<Response> {\n    return fetch(this.url); // <-\n" \
         "  }\n}\n"
    lines, marked = _lines(ts)
    assert [lines[n].strip() for n in enclosing(lines.get, marked, "typescript")] == [
        "async #fetch(): Promise<Response> {", "class Ky {"]
