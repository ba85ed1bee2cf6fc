module example.org/mod

go 1.26
