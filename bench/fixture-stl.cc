// fixture-stl.cc - containers for bench/print.sh: a std::vector<int> of
// 10 million elements and a std::map<std::string, int> of 10,000 nodes.
// Once they are filled, prints "ready PID" on stdout and waits forever in
// pause().  Kill it with any fatal signal.
//
// Built by bench/print.sh with "c++ -O0 -g"; nothing here depends on
// spyglass.
#include <csignal>
#include <cstdio>
#include <map>
#include <string>
#include <unistd.h>
#include <vector>

std::vector<int> big_vector;
std::map<std::string, int> big_map;


int main()
{
	big_vector.resize(10000000);
	for (size_t i = 0; i < big_vector.size(); i++)
		big_vector[i] = (int)i;
	char key[32];
	for (int i = 0; i < 10000; i++) {
		snprintf(key, sizeof(key), "key-%05d", i);
		big_map[key] = i;
	}
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	for (;;)
		pause();
}
