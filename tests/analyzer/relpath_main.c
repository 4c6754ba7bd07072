/* relpath_main.c — a program built with a relative source path (`cc ../x.c`,
 * see CMakeLists.txt): its DWARF names "../../tests/analyzer/relpath_main.c"
 * relative to DW_AT_comp_dir, which the symbolizer must resolve (test_symbolize.c). */
volatile double relpath_sink;

void relpath_work(int n)
{
    for (int i = 0; i < n; i++) relpath_sink += i * 0.5;
}

int main(void)
{
    relpath_work(10);
    return 0;
}
