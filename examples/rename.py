# Renames the function greet to welcome everywhere it is used (a Python program: the same tool functions).
# Run it with: cairn spawn --code examples/rename.py "rename greet to welcome"
changed = []
for path in search_files('src/**/*.js'):
    text = read_file(path)
    if 'greet' in text:
        write_file(path, text.replace('greet', 'welcome'))
        changed.append(path)
submit_result('rename greet to welcome', changed)
