// The scn command line: scripts, -e, the REPL.
int main() { return 0; }
