// Mounts the Element Plus page (ElementPlusApp.vue) with the library installed globally, as its quick start shows.
import { createApp } from 'vue';
import ElementPlus from 'element-plus';
import 'element-plus/dist/index.css';
import ElementPlusApp from './ElementPlusApp.vue';

createApp(ElementPlusApp).use(ElementPlus).mount('#root');
