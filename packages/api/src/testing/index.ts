export { runReadmeExample } from './readme-example.js';
export { tempFolders } from './temp-folders.js';
