# Ruby test fixture. Never executed.
puts 'hello'
