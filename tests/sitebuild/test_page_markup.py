"""sitebuild/page_markup.py: the markup fixes, each on the smallest page that needs it."""

import page_markup


def test_checkboxes_lose_autocomplete_and_text_inputs_keep_it():
    html = ('<input class="md-toggle" type="checkbox" id="__drawer" autocomplete="off">'
            '<input type="text" class="md-search__input" autocomplete="off">')
    out = page_markup.lighter_page(html)
    assert '<input class="md-toggle" type="checkbox" id="__drawer">' in out
    assert '<input type="text" class="md-search__input" autocomplete="off">' in out


def test_plain_tokens_of_code_blocks_become_text_and_the_text_is_unchanged():
    code = ('<div class="language-python highlight"><pre><span></span><code>'
            '<span class="n">x</span><span class="w"> </span><span class="o">=</span>'
            '<span class="w"> </span><span class="n">f</span><span class="p">(</span>'
            '<span class="mi">1</span><span class="p">)</span>  <span class="c1"># one</span>\n'
            '</code></pre></div>')
    out = page_markup.lighter_page(code)
    assert '<pre><code>x = f(1)  <span class="c1"># one</span>' in out
    # A notebook cell's code (mkdocs-jupyter's highlight-ipynb) loses the same spans.
    notebook = code.replace("language-python highlight", "highlight-ipynb")
    assert '<pre><code>x = f(1)' in page_markup.lighter_page(notebook)
    # Code outside a highlighted block keeps its spans.
    other = code.replace("language-python highlight", "listing")
    assert page_markup.lighter_page(other) == other


def test_notebook_pages_lose_dead_loaders_and_keep_styles_in_head():
    html = ('<html><head><title>t</title></head><body><div>'
            '<style type="text/css">.a{color:red}</style>\n'
            '<!-- Load mathjax -->\n<script src=""> </script>\n<!-- MathJax configuration -->\n'
            '<script type="text/x-mathjax-config">init()</script>\n<!-- End of mathjax configuration -->'
            '<script type="module">document.querySelectorAll(".jp-Mermaid > pre.mermaid")</script>\n'
            '<style>\n  .jp-Mermaid:not(.jp-RenderedMermaid) {display: none;}\n</style>\n'
            '<clipboard-copy ,="" aria-label="Copy to Clipboard" for="cell-1"></clipboard-copy>'
            "<style>\n['pre { line-height: 125%; }']\n</style>"
            '</div></body></html>')
    out = page_markup.lighter_page(html, notebook=True)
    head, body = out.split("</head>")
    assert '<style type="text/css">.a{color:red}</style>' in head and "<style" not in body
    for gone in ('src=""', "mathjax", "jp-Mermaid", "['pre", ',=""'):
        assert gone not in out, gone
    assert '<clipboard-copy aria-label="Copy to Clipboard" for="cell-1" role="button" tabindex="0">' in out
